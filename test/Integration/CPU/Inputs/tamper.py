"""Replaces a checker's inputs with trivial results, to prove that it fails.

Usage: tamper.py zero FILE...        every byte of each FILE becomes 0
       tamper.py copy FROM TO        TO gets FROM's bytes (a result that
                                     copies an argument)
"""
import shutil
import sys


def main():
    if sys.argv[1] == "zero":
        for path in sys.argv[2:]:
            size = len(open(path, "rb").read())
            with open(path, "wb") as out:
                out.write(bytes(size))
    elif sys.argv[1] == "copy":
        shutil.copyfile(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown mode %s" % sys.argv[1])


if __name__ == "__main__":
    main()
