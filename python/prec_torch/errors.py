"""The one exception the frontend reports: a message that says what to
change, printed without a traceback by the command line."""


class FrontendError(Exception):
    pass
