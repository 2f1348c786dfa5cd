// Options and inputs prec-fully-shard cannot build a step from: each error
// says what it expected.
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 loss=nope" 2>&1 | FileCheck %s --check-prefix=NOLOSS
// NOLOSS: error: prec-fully-shard: expected a function @nope with a body (option loss=NAME)
// RUN: not prec-opt %s --prec-fully-shard="mesh=4x0" 2>&1 | FileCheck %s --check-prefix=MESH
// MESH: error: prec-fully-shard: mesh='4x0': expected positive extents such as 4 or 2x4 (replicas x shards)
// RUN: not prec-opt %s --prec-fully-shard 2>&1 | FileCheck %s --check-prefix=NOGRID
// NOGRID: error: prec-fully-shard: expected mesh=N (FSDP) or mesh=RxN (HSDP), or exactly one shard.grid in the module; found 0 grids
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 param-dtypes=attn.*=bf16" 2>&1 | FileCheck %s --check-prefix=NOMATCH
// NOMATCH: error: prec-fully-shard: param-dtypes='attn.*=bf16' names no parameter; they are fc.weight arg1
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 reduce-dtype=f33" 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: prec-fully-shard: reduce-dtype='f33' is not a float type
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 optimizer=lion" 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: prec-fully-shard: optimizer='lion': expected sgd or adamw
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 num-params=3" 2>&1 | FileCheck %s --check-prefix=RANK0
// RANK0: error: 'func.func' op prec-fully-shard: parameter 2 ('logit_scale') must be a float tensor of static shape and rank >= 1 (it is sharded on dimension 0); found 'tensor<f32>': give a scalar parameter the shape [1] (nn.Parameter(torch.tensor([v])) in PyTorch)
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 grid=loss" 2>&1 | FileCheck %s --check-prefix=CLASH
// CLASH: error: prec-fully-shard: the module already has a symbol @loss; name the grid with grid=NAME
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 loss=two" 2>&1 | FileCheck %s --check-prefix=RESULTS
// RESULTS: error: 'func.func' op prec-fully-shard: expected result 1 (state after the loss) to be an integer value fed back into argument 0 of the same type, as prec-globals-to-arguments makes a dropout seed; found '(tensor<4xf32>) -> (tensor<f32>, tensor<f32>)'
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 loss=nothing" 2>&1 | FileCheck %s --check-prefix=NOPARAM
// NOPARAM: error: 'func.func' op prec-fully-shard: no parameter: every float tensor argument is marked prec.no_grad (or num-params=0)
// Hosts and the gradients' dtype across them.
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 hosts=3" 2>&1 | FileCheck %s --check-prefix=HOSTS
// HOSTS: error: prec-fully-shard: hosts=3 does not divide mesh=4: expected N ranks on hosts of N / hosts ranks each
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 hosts=0" 2>&1 | FileCheck %s --check-prefix=HOSTS0
// HOSTS0: error: prec-fully-shard: hosts=0: expected a positive number of hosts
// RUN: not prec-opt %s --prec-fully-shard="hosts=2" 2>&1 | FileCheck %s --check-prefix=HOSTSGRID
// HOSTSGRID: error: prec-fully-shard: hosts=2 needs mesh=N or mesh=RxN (a module's own grid names the axes across hosts with 'prec.inter_host_axes')
// RUN: not prec-opt %s --prec-fully-shard="mesh=2x4 hosts=4" 2>&1 | FileCheck %s --check-prefix=HOSTSHSDP
// HOSTSHSDP: error: prec-fully-shard: hosts=4 with mesh=2x4 (HSDP): expected hosts equal to the 2 replicas (each replica shards inside one host)
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 inter-host-reduce-dtype=bf16" 2>&1 | FileCheck %s --check-prefix=ONEHOST
// ONEHOST: error: prec-fully-shard: inter-host-reduce-dtype=bf16: expected hosts=H with H > 1 (partial sums cross hosts only on a grid of several hosts)
// RUN: not prec-opt %s --prec-fully-shard="mesh=2x2 hosts=2 inter-host-reduce-dtype=bf16" 2>&1 | FileCheck %s --check-prefix=INTERHSDP
// INTERHSDP: error: prec-fully-shard: inter-host-reduce-dtype=bf16: expected an FSDP mesh=N: with HSDP the gradients cross hosts in the replicas' all_reduce, whose group lies across hosts only (one level); reduce-dtype sets its wire
// RUN: not prec-opt %s --prec-fully-shard="mesh=2 hosts=2 inter-host-reduce-dtype=bf16" 2>&1 | FileCheck %s --check-prefix=ONERANK
// ONERANK: error: prec-fully-shard: inter-host-reduce-dtype=bf16: expected more than one rank per host (mesh=2 on hosts=2 reduces in one level)
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 hosts=2 inter-host-reduce-dtype=f8E8M0FNU" 2>&1 | FileCheck %s --check-prefix=INTERSCALE
// INTERSCALE: error: prec-fully-shard: inter-host-reduce-dtype=f8E8M0FNU: expected an inter-host-reduce-dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f8E8M0FNU'
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 hosts=2 inter-host-reduce-dtype=f64" 2>&1 | FileCheck %s --check-prefix=INTERWIDE
// INTERWIDE: error: prec-fully-shard: inter-host-reduce-dtype=f64: expected an inter-host-reduce-dtype that acc_dtype 'f32' holds (partial sums are summed in it), got 'f64'
// RUN: not prec-opt %s --prec-fully-shard="mesh=4 hosts=2 inter-host-reduce-dtype=f33" 2>&1 | FileCheck %s --check-prefix=INTERTYPE
// INTERTYPE: error: prec-fully-shard: inter-host-reduce-dtype='f33' is not a float type

func.func @loss(%w: tensor<10x8xf32> {prec.name = "fc.weight"}, %b: tensor<1xf32>,
                %s: tensor<f32> {prec.no_grad, prec.name = "logit_scale"}) -> tensor<f32> {
  return %s : tensor<f32>
}

func.func @two(%w: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = prec.reduce %w dims = [0] reduction = <sum> : tensor<4xf32> -> tensor<f32>
  return %s, %s : tensor<f32>, tensor<f32>
}

func.func @nothing(%x: tensor<4xf32> {prec.no_grad}) -> tensor<f32> {
  %s = prec.reduce %x dims = [0] reduction = <sum> : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
