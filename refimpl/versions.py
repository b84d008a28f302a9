"""Which PaddlePaddle release refimpl behaves like: the version profile.

`REFIMPL_PADDLE=1.8|2.0|3` (read once, when refimpl is imported; default 2.0, the version
of the seed API index), `python -m refimpl run --paddle 1.8 script.py`, or `use("1.8")` in
tests. Every behaviour that really differs between Paddle releases is one entry of
SWITCHES, read through `switch(name)`; specs/versions.md lists each with the release it
was measured on and the test that checks it.
"""
import contextlib
import os

__all__ = ["VERSIONS", "DEFAULT", "RELEASES", "current", "release", "set_current", "use",
           "switch", "SWITCHES"]

VERSIONS = ("1.8", "2.0", "3")
DEFAULT = "2.0"
# the release each profile was measured on (2.0: its source and documentation)
RELEASES = {"1.8": "1.8.5", "2.0": "2.0.0", "3": "3.3.1"}
ENV_VAR = "REFIMPL_PADDLE"

# behaviour -> its value under 1.8, 2.0 and 3 (specs/versions.md says what each means)
SWITCHES = {
    # affine_grid's theta that is not a Tensor: TypeError (1.8.5, 3.3.1, measured), or
    # ValueError (2.0: its test_affine_grid_function asserts it)
    "affine_grid_theta_error": {"1.8": "TypeError", "2.0": "ValueError", "3": "TypeError"},
    # F.interpolate's size that is no list, tuple or Tensor (a set, ...): a TypeError (2.0's
    # source; 1.8.5's image_resize out_shape likewise), or taken as list(size) (3.3.1,
    # measured: a set passes; an int is a TypeError in all)
    "interpolate_size_iterable": {"1.8": "list", "2.0": "list", "3": "iterable"},
    # paddle.equal(x, y) with a Python number y: a TypeError (y must be a Tensor), or y
    # becomes a 0-D constant of x's dtype (3.3.1, eager and static; its not_equal,
    # less_than, ... still refuse numbers)
    "equal_number_y": {"1.8": "refused", "2.0": "refused", "3": "full"},
    # the dtypes paddle.flatten takes in static mode: float32/64, int8/32/64 (2.0's check,
    # a TypeError otherwise; its test_flatten_contiguous_range_op refuses float16), or any
    # (3.3.1, measured: float16 and bool pass)
    "flatten_dtypes": {"1.8": "checked", "2.0": "checked", "3": "any"},
    # fluid.executor._as_lodtensor of a list: a RuntimeError (1.8.5, measured: it may hold
    # sequences), or a list / tuple made an array of the dtype given, other non-arrays a
    # TypeError (2.0's executor.py and its test_executor_feed_non_tensor)
    "as_lodtensor_sequences": {"1.8": "refused", "2.0": "converted", "3": "converted"},
    # Tensor.inplace_version, the storage views and detach share, and the backward error of
    # a saved tensor changed in place since: none (1.8.5, measured: no inplace_version, an
    # assign into x reaches neither reshape(x) nor x.detach()), the error naming the tensor
    # and its grad op (2.0's basic_engine.cc), or the tensor only (3.3.1, measured)
    "inplace_version": {"1.8": None, "2.0": "grad_op", "3": "tensor"},
    # an eager in-place function (x.abs_(), paddle.cos_(x), ...) of a tensor that needs a
    # gradient: the op reads x itself (2.0), or a copy of x (3.3.1, whose in-place APIs copy
    # an input their gradient reads: x.abs_().abs_() backpropagates, measured)
    "inplace_input": {"1.8": "shared", "2.0": "shared", "3": "copied"},
    # a dynamic-mode parameter's trainable: a plain attribute (1.8.5, measured: setting it
    # leaves stop_gradient), or `not stop_gradient`, its setter taking bools only (2.0, 3.3.1)
    "param_trainable": {"1.8": "attribute", "2.0": "stop_gradient", "3": "stop_gradient"},
    # an RNN cell's bias_ih_attr / bias_hh_attr=False: no bias (None, Paddle 2.0's
    # create_parameter returns None for attr False), or a zero non-trainable parameter
    # (3.3.1, measured: named_parameters lists it)
    "rnn_cell_false_bias": {"1.8": "absent", "2.0": "absent", "3": "frozen"},
    # the dtypes fill_constant (and so zeros / ones / full) and full_like take: Paddle 1.8.5's check
    # (bool, float16/32/64, int32, int64; a TypeError otherwise), which Paddle 2.0's own
    # test_ones_op still asserts (int8 refused), or any dtype (3.3.1, measured)
    "fill_constant_dtypes": {"1.8": "checked", "2.0": "checked", "3": "any"},
    # fluid.backward._strip_grad_suffix_: cut at the first @GRAD (1.8.5, 2.0's source), or
    # at the first @GRAD ending the name or followed by '@', then drop the 'grad/' scopes
    # before the name (3.3.1, measured)
    "strip_grad_suffix": {"1.8": "first", "2.0": "first", "3": "suffix"},
    # the attributes every op desc holds besides its own: the MKL-DNN / int8 ones of the ops
    # that have them (mul's use_mkldnn, scale_x, ...; 1.8.5, 2.0's test_operator_desc), or
    # none of those and with_quant_attr (False) on every op (3.3.1, measured)
    "op_desc_attrs": {"1.8": "mkldnn", "2.0": "mkldnn", "3": "with_quant_attr"},
    # the dim attr of a reduction over every axis (axis None or []: reduce_all): [0]
    # (1.8.5, 2.0's source), or [] (3.3.1, measured: paddle.mean / max of a 0-D x, which
    # has no axis 0, build)
    "reduce_all_dim": {"1.8": (0,), "2.0": (0,), "3": ()},
    # the dtypes a static paddle.mean takes: float32 / float64 (2.0's stat.py, its
    # test_mean_op; 1.8 has no paddle.mean, taken as 2.0), or any (3.3.1, legacy IR,
    # measured: int32, int64, bool, float16 build)
    "mean_dtypes": {"1.8": "checked", "2.0": "checked", "3": "any"},
    # str / repr of a place (and so the Tensor's repr): its class's name, 'CPUPlace',
    # 'CUDAPlace(0)' (1.8.5's str, 2.0's to_string), or 'Place(cpu)', 'Place(gpu:0)' (3.3.1)
    "place_repr": {"1.8": "class", "2.0": "class", "3": "place"},
    # batch_norm's MomentumTensor input weighs the running statistics (1.8, 2.0), or its
    # CPU kernel ignores it for the momentum attr (3.3.1, measured)
    "batch_norm_momentum_tensor": {"1.8": "used", "2.0": "used", "3": "ignored"},
    # the argument paddle.tril / triu's ValueError for a 1-D x names: "input shape in tril
    # must be at least 2-D" (1.8.5, measured), "x shape in ..." (2.0's creation.py, which
    # its test_tril_triu_op matches; 3.3.1's creation.py for a static program, which Paddle
    # 3's test_tril_triu_op matches; its dygraph words it as its InferMeta)
    "tril_rank_error_name": {"1.8": "input", "2.0": "x", "3": "x"},
    # paddle.where of condition / x / y of different shapes: expanded to their broadcast
    # shape for the where op (3.3.1; refimpl's under 1.8, whose paddle has no where), or
    # x * cast(cond) + y * cast(not cond) by elementwise ops (2.0's search.py), which
    # broadcast the run-time shapes (its test_where_op feeds other shapes than declared)
    "where_broadcast": {"1.8": "expand", "2.0": "arithmetic", "3": "expand"},
    # the mode a script starts in (refimpl/framework/mode.py)
    "default_mode": {"1.8": "static", "2.0": "dynamic", "3": "dynamic"},
    # every tensor needing a gradient keeps it after backward and Tensor.grad is an ndarray
    # (1.8, 2.0), or .grad is a Tensor and a non-leaf keeps it only after retain_grads() (3)
    "legacy_grads": {"1.8": True, "2.0": True, "3": False},
    # the shape of full reductions (mean, reduce_* over all axes, losses, accuracy, ...)
    "scalar_shape": {"1.8": (1,), "2.0": (1,), "3": ()},
    # paddle.to_tensor of a scalar (a Python or numpy number, not a 0-D array): shape [1]
    # (release/2.0's creation.py wraps it as np.array([data]); 0-D tensors came with 2.5)
    # or 0-D (3.3.1, measured)
    "to_tensor_scalar_shape": {"1.8": (1,), "2.0": (1,), "3": ()},
    # a static program's paddle.to_tensor of a numpy float scalar (np.float64(1.0)): the
    # default float dtype (release/2.0's creation.py casts float data to it) or its own
    # (3.3.1, measured: Paddle 3's test_npscaler_to_tensor)
    "to_tensor_numpy_scalar_dtype": {"1.8": "default", "2.0": "default", "3": "kept"},
    # fetched size-1 arrays convert to Python numbers (float(), '%f'), as numpy 1.x allowed
    "size1_arrays_are_scalars": {"1.8": True, "2.0": True, "3": False},
    # paddle.distribution.Categorical.sample draws from the logits as unnormalized weights
    # (2.0: multinomial of them) or from their softmax (3.3.1, measured)
    "categorical_sample_from": {"1.8": "weights", "2.0": "weights", "3": "softmax"},
    # Categorical.entropy keeps the reduced last axis (2.0: keep_dim) or not (3.3.1, measured;
    # its kl_divergence keeps it)
    "categorical_entropy_keeps_last_dim": {"1.8": True, "2.0": True, "3": False},
    # paddle.distribution.Uniform / Normal parameters given as Python numbers: shape [1]
    # (release/2.0 wraps them in a list) or 0-D (3.3.1, measured: Normal(0., 1.).entropy()
    # is [])
    "distribution_number_param_shape": {"1.8": (1,), "2.0": (1,), "3": ()},
    # `refimpl run` puts back the numpy 1.x / Pillow 9 names newer releases removed
    # (np.int, Image.ANTIALIAS, ...): scripts of 1.8 and 2.0's time (numpy 1.16-1.20)
    # use them; Paddle 3 scripts meet today's numpy
    "legacy_library_names": {"1.8": True, "2.0": True, "3": False},
    # a DataLoader batch of one-field samples (a Dataset returning one array): [data]
    # (Paddle <= 2.0) or data itself (2.1 and later; 2.1 warns of the change)
    "dataloader_single_field": {"1.8": "listed", "2.0": "listed", "3": "bare"},
    # a static-mode DataLoader over a Dataset, return_list=True, one place: each step a list
    # of one batch per place, [[x, y]] (1.8.5, measured), or the batch [x, y] itself
    # (2.0's dataloader_iter unwraps one place's list; 3.3.1 measured)
    "static_dataloader_one_place": {"1.8": "per_place", "2.0": "batch", "3": "batch"},
    # paddle.io.DataLoader's return_list when not given: fluid 1.8's DataLoader takes False
    # (1.8.5's reader.py), Paddle 2.0's (the same class, fluid/reader.py) and 3.3.1's True
    # (PaddleRec 2.0's static trainer builds its loader without feed_list or return_list)
    "dataloader_return_list": {"1.8": False, "2.0": True, "3": True},
    # paddle.io / fluid.io DataLoader over a Dataset without places: an AssertionError
    # "places cannot be None" (1.8.5, measured), or [CPUPlace()] (release/2.0's reader.py
    # takes places=None; 3.3.1)
    "dataloader_places_required": {"1.8": True, "2.0": False, "3": False},
    # samples of one batch with different numbers of fields: Paddle <= 2.0's
    # default_collate_fn lays them out in slots that grow to the longest sample (1.8.5's
    # and release/2.0's dataloader_iter.py; PaddleRec 2.0's word2vec reader relies on it),
    # 2.1 and later refuse them (3.3.1: "fields number not same among samples in a batch")
    "collate_unequal_fields": {"1.8": "slots", "2.0": "slots", "3": "error"},
    # a DataLoader batch's top-level fields that are lists (a collate_fn returning padded
    # id lists): each one array, as Paddle <= 2.0 copied every field into a LoDTensor
    # ("arrays"), or kept as nested Python lists (2.1's structure-restoring loader)
    "dataloader_list_fields": {"1.8": "arrays", "2.0": "arrays", "3": "nested"},
    # paddle.Model's fit/evaluate logs of a loss of several values (trained on their sum):
    # its first value (Paddle 2.0's hapi logs l[0]) or an error (3.3.1: float(l) fails)
    "hapi_loss_log": {"1.8": "first_value", "2.0": "first_value", "3": "error"},
    # RandomHorizontalFlip / RandomVerticalFlip's prob outside [0, 1]: taken (2.0's source
    # stores it unchecked, so a prob above 1 always flips; its docstring examples pass 224),
    # or refused (3.3.1, measured: an AssertionError); 1.8.5 has no such transforms
    "flip_prob_range": {"1.8": "any", "2.0": "any", "3": "checked"},
    # softmax_with_cross_entropy's hard Label may carry extra trailing dims of size 1
    # ([B, T, 1, 1] for Logits [B, T, V]; 1.8.5 measured, PaddleNLP 2.0's Perplexity relies
    # on it) or must have the Logits' rank (3.3.1 raises)
    "cross_entropy_label_unit_tail": {"1.8": True, "2.0": True, "3": False},
    # dot of [B, N] matrices: [B, 1] (the reduced dim kept) or [B]
    "dot_keeps_last_dim": {"1.8": True, "2.0": True, "3": False},
    # an op's FLOAT attributes in dynamic mode: 32-bit as in a static program (1.8.5
    # measured, 2.0: core.ops converts attrs by the OpProto), or as Paddle 3's eager API
    # types each (float: 32-bit; double or Scalar: exact, OpDef.eager_double_attrs;
    # 3.3.1 measured: paddle.scale / clip / leaky_relu keep 0.1, elu / layer_norm round it)
    "eager_float_attrs": {"1.8": "declared", "2.0": "declared", "3": "api"},
    # an op's FLOAT attributes in a static program: 32-bit as its OpDesc holds them (1.8.5,
    # 2.0, and 3.3.1's legacy IR, measured), or under 3 while FLAGS_enable_pir_api is on
    # (its default) as 3.3.1's PIR op types each (double: exact, OpDef.pir_double_attrs;
    # measured: leaky_relu's alpha, softplus, group_norm's epsilon, pad3d's value, full's
    # value exact; scale, clip, pow, pad, full_like rounded, their Scalars float32 tensors)
    "static_float_attrs": {"1.8": "legacy", "2.0": "legacy", "3": "pir"},
    # paddle._C_ops given static Variables in static mode: refused (2.0 has no _C_ops, its
    # core.ops run eagerly only; 3.3.1 with FLAGS_enable_pir_api off: its legacy IR refuses
    # them), or, under 3 while FLAGS_enable_pir_api is on, the op built into the program
    # (3.3.1's _C_ops build PIR ops; Paddle 3's op tests call them under IrGuard)
    "c_ops_static": {"1.8": None, "2.0": None, "3": "pir"},
    # Tensor.numpy(place): 3.3.1 takes a place (measured; Paddle 3's test_real_imag_op
    # calls it), 1.8.5's VarBase.numpy() none (measured: TypeError "incompatible function
    # arguments"), nor 2.0's (the same pybind method)
    "tensor_numpy_place": {"1.8": False, "2.0": False, "3": True},
    # fill_constant initializers (Constant, create_global_var, an optimizer's learning rate
    # and accumulators) also set str_value, so a float64 one holds 0.1 exactly (3.3.1's
    # initializer, measured), or only the FLOAT value, float32(0.1) (1.8.5 measured, 2.0's
    # initializer.py)
    "init_str_value": {"1.8": False, "2.0": False, "3": True},
    # Momentum's L2Decay: a scale op appended to the gradient as any regularizer's (1.8.5's
    # fluid Momentum), fused into the momentum op's regularization_coeff when the optimizer's
    # weight_decay is an L2Decay (2.0's paddle.optimizer.Momentum: a float, a parameter's own
    # regularizer appended), or also a float weight_decay and a parameter's own L2Decay
    # (3.3.1's, static and dynamic; its own other regularizers appended, the fused one off)
    "momentum_l2_decay": {"1.8": "appended", "2.0": "optimizer", "3": "fused"},
    # dist's arithmetic: its own kernel's, (sum |d|^p)^(1 / p) and the plain gradient (1.8.5
    # measured; 2.0's dist_op.h the same), or 3.3.1's, which runs p_norm's: the root 1.0f / p
    # in float32, 1e-12 added to out^(p-1) in the gradient (measured in float64)
    "dist_kernel": {"1.8": "dist", "2.0": "dist", "3": "p_norm"},
    # paddle.norm: Paddle 2.0's (p 'fro' by default; a number p over any axes a vector
    # norm) or 3.3.1's, which is paddle.linalg.norm (p None; a number p over two axes a
    # matrix norm, 'nuc'; measured)
    "paddle_norm": {"1.8": "2.0", "2.0": "2.0", "3": "linalg"},
    # selu's gradient where out <= 0: out + float32(scale * alpha) rounded to float32 (1.8.5
    # measured: its kernel's float temporary; 2.0's selu_op.h the same), or kept in the
    # input's dtype (3.3.1 measured)
    "selu_grad": {"1.8": "float32", "2.0": "float32", "3": "exact"},
    # prior_box's prior sides (min_size * sqrt(ratio), sqrt(min * max)) worked out in double
    # (1.8.5 measured; 2.0's prior_box_op.h the same) or in float32 before halving (3.3.1
    # measured in float64: its kernel's float sizes and ratios)
    "prior_box_sizes": {"1.8": "double", "2.0": "double", "3": "float32"},
    # Adam/AdamW: epsilon added to sqrt(m2) as is, or scaled by sqrt(1 - beta2^t)
    "adam_epsilon": {"1.8": "unscaled", "2.0": "scaled", "3": "scaled"},
    # Lamb: moments bias-corrected by 1 - beta^t before the update
    "lamb_bias_correction": {"1.8": False, "2.0": True, "3": True},
    # paddle.optimizer.Adadelta's learning rate: unused (1.8.5's and 2.0's adadelta op has
    # no LearningRate), or scaling the update (3.3.1, measured: its op's LearningRate input)
    "adadelta_learning_rate": {"1.8": "unused", "2.0": "unused", "3": "scales"},
    # when Lamb scales its step by the trust ratio ||p|| / ||update||: always (1.8.5, 2.0's
    # lamb_op.h), or only with a weight_decay > 0 or always_adapt (3.3.1, measured)
    "lamb_trust_ratio": {"1.8": "always", "2.0": "always", "3": "decay_or_always_adapt"},
    # integer elementwise_floordiv: toward zero (C's /) or floored (Python's //)
    "int_floordiv": {"1.8": "trunc", "2.0": "trunc", "3": "floor"},
    # paddle.divide of integers: the op's integer division toward zero, or true division
    # in float32 (the elementwise_div op itself divides integers toward zero everywhere)
    "int_divide": {"1.8": "trunc", "2.0": "trunc", "3": "true"},
    # matmul (v1) reads a transposed 1-D X as a column and a transposed 1-D Y as a row
    # (1.8, 2.0), or ignores transposing 1-D operands as matmul_v2 does (3)
    "matmul_transposed_vectors": {"1.8": "matrix", "2.0": "matrix", "3": "ignored"},
    # integer elementwise_mod: the sign of X (C's %) or of Y (Python's %)
    "int_mod": {"1.8": "trunc", "2.0": "floor", "3": "floor"},
    # avg pool2d / pool3d, exclusive=False, ceil_mode=True: divide windows that run past the input
    # by the full kernel area (1.8) or by the part inside the padded input (3)
    "avg_pool_ceil_divisor": {"1.8": "kernel", "2.0": "padded_input", "3": "padded_input"},
    # the max pools' return_mask with ceil_mode=True: max_pool2d/3d_with_index has no ceil_mode
    # and pools to floor-sized outputs (1.8, 2.0: the op's attrs), or honours it (3.3.1)
    "max_pool_mask_ceil_mode": {"1.8": "ignored", "2.0": "ignored", "3": "honoured"},
    # fluid.dygraph.Pool2D takes pool_type and data_format in any case ('MAX', 'nhwc': 2.0
    # folds them), or exactly (1.8.5, measured: 'MAX' is a ValueError); 3 has no such layer
    "pool2d_layer_case_folding": {"1.8": False, "2.0": True, "3": True},
    # initializer ops are prepended to the startup program (1.8, 2.0) or appended (3)
    "startup_init_order": {"1.8": "prepend", "2.0": "prepend", "3": "append"},
    # the dtypes the clip op takes for X: floats only (1.8, 2.0: CPU kernels for float and
    # double, the layers' float16 / float32 / float64 checks), or int32 / int64 too (3)
    "clip_dtypes": {"1.8": "floats", "2.0": "floats", "3": "floats_and_ints"},
    # the dtypes paddle.add / subtract / multiply / divide / ... take for a static x and y:
    # float16/32/64, int32, int64 (Paddle 2.0's _elementwise_op check; its test_multiply
    # expects a TypeError for int8), or any (3.3.1 takes int8, uint8, bool, complex64)
    "elementwise_api_dtypes": {"1.8": "checked", "2.0": "checked", "3": "any"},
    # the dtypes paddle.uniform / rand / randn draw (a default dtype outside them, or a
    # static explicit one, is a TypeError): float32 / float64 (2.0's checks; its
    # test_rand_op sets the default to float16 and expects a TypeError), or float16 too
    # (3.3.1, measured: rand under set_default_dtype('float16') gives float16)
    "random_float_dtypes": {"1.8": ("float32", "float64"), "2.0": ("float32", "float64"),
                            "3": ("float16", "float32", "float64")},
    # a static Variable's `x[index] = value`: Paddle 2.0's set_value (steps of 1; a
    # number, ndarray or Variable value; numbers and arrays into bool / float32 / float64 /
    # int32 / int64 only: its test_set_value_op), or any step and dtype (2.1 added steps;
    # 3.3.1's paddle.static.setitem under OldIrGuard, measured, sets x[0:4:2] = 2.0 on
    # float16; it refuses a list value as 2.0 does)
    "static_setitem": {"1.8": "restricted", "2.0": "restricted", "3": "general"},
    # an eager `x[index] = v` on a leaf Tensor that needs a gradient: refused (3.3.1,
    # measured: "Leaf Tensor ... can't use inplace strategy"; refimpl's under 1.8, whose
    # VarBase has no item assignment), or written without being recorded, x staying a
    # leaf (2.0: its VarBase.__setitem__ writes the numpy value and bumps the version)
    "eager_setitem_leaf": {"1.8": "refused", "2.0": "untraced", "3": "refused"},
    # TracedLayer.save_inference_model checks its arguments' types (2.0's check_type: feed /
    # fetch None or lists of ints), or takes any indexable of positions (1.8.5, whose
    # test_imperative_ptb_rnn passes feed=range(4))
    "traced_layer_save_checks": {"1.8": False, "2.0": True, "3": True},
    # copy.deepcopy of an eager tensor that an op made (not a leaf): a RuntimeError in 2.0
    # (its VarBase.__deepcopy__), a copy in 3.3.1 (measured); 1.8.5 pickles no VarBase at
    # all (TypeError, measured), refimpl copies there
    "deepcopy_non_leaf": {"1.8": True, "2.0": False, "3": True},
    # fluid.layers.uniform_random given a static shape Variable made by the `shape` op:
    # the output takes the shape that op read ([-1, 2]; 2.0's try_set_static_shape_tensor,
    # its test_static_shape_inferrence_for_shape_tensor) or one -1 per element (1.8.5:
    # [-1, -1], measured); 3 has no fluid.layers (kept as 2.0)
    "shape_of_shape_op": {"1.8": False, "2.0": True, "3": True},
    # paddle.arange's static shape when start, end and step are numbers: unknown ([-1], as
    # the range op infers: 1.8.5 and 2.0's fluid.layers.range) or the count (3.3.1's
    # arange sets ceil((end - start) / step), measured; its test_arange asserts [5])
    "arange_static_shape": {"1.8": "unknown", "2.0": "unknown", "3": "count"},
    # fluid.layers check their arguments' types and dtypes in static mode as Paddle 1.8.5 or
    # 2.0 did, and under 2.0 a few paddle.* functions as 2.0's (layers/argument_checks.py);
    # under 3 refimpl's ops check what they take, and a few paddle.* functions as 3.3.1's
    "fluid_layer_checks": {"1.8": "1.8", "2.0": "2.0", "3": "3"},
    # what fluid.layers.roi_align / roi_pool take by position after their attrs: 1.8.5's
    # roi_align (..., sampling_ratio, name, rois_lod) and roi_pool (..., spatial_scale,
    # rois_lod), measured; or 2.0's (..., rois_num, name) for both; 3 has no fluid (as 2.0)
    "roi_layer_positional_order": {"1.8": "1.8", "2.0": "2.0", "3": "2.0"},
    # the dtypes logical_and / or / xor / not take: bool only (1.8, 2.0 register bool
    # kernels; their layers check bool), or any (3, nonzero is True)
    "logical_op_dtypes": {"1.8": "bool", "2.0": "bool", "3": "any"},
    # paddle.logsumexp of int32 / int64: refused by the op (1.8, 2.0 register float and
    # double kernels; 2.0's layer checks float32 / float64), or computed in float32 (3)
    "logsumexp_ints": {"1.8": "refused", "2.0": "refused", "3": "float32"},
    # static paddle.sum checks its dtype (float32 / float64 / int32 / int64, none that
    # overflows x's: 2.0) or takes any (3.3.1, measured)
    "sum_dtype_checks": {"1.8": True, "2.0": True, "3": False},
    # stack of one Variable (not a tensor array): stacks [x] (1.8) or a TypeError (2.0, 3)
    "stack_single_variable": {"1.8": "wrapped", "2.0": "refused", "3": "refused"},
    # which FLAGS_* get_flags / set_flags accept (fluid/flags.py)
    "public_flags": {"1.8": "1.8", "2.0": "2.0", "3": "3"},
    # save_inference_model writes the program as a ProgramDesc (.pdmodel), or as a PIR
    # json (.json) while FLAGS_enable_pir_api is on (3; pir_utils.OldIrGuard turns it off)
    "inference_program_format": {"1.8": "program_desc", "2.0": "program_desc",
                                 "3": "pir_json"},
    # a static program keeps an is_sparse embedding's gradient as a SelectedRows (1.8, 2.0;
    # 3.3.1 under OldIrGuard), or dense while FLAGS_enable_pir_api is on (3.3.1: its PIR
    # embedding_grad ignores sparse, measured): framework/selected_rows.py
    "static_sparse_gradients": {"1.8": "selected_rows", "2.0": "selected_rows",
                                "3": "dense_under_pir"},
    # dynamic mode, Adam with a weight_decay given a sparse embedding's gradient: the
    # regularized (dense) update (1.8: its fluid Adam; 1.8.5's own dygraph regularization
    # fails on ParamBase.lod_level), or Paddle 3.3.1's RuntimeError (measured; 2.0 as 3)
    "sparse_weight_decay": {"1.8": "dense", "2.0": "refused", "3": "refused"},
    # DataParallel leaves gradients local for scale_loss / apply_collective_grads to
    # average by hand (1.8), or averages them during backward (2.0, 3: both deprecated)
    "dp_manual_reduction": {"1.8": True, "2.0": False, "3": False},
    # an empty detection result (multiclass_nms2's Out and Index when nothing is kept,
    # distribute_fpn_proposals' level without RoIs) is a [0] tensor (1.8) or [0, width]
    # (2.0 fetches it as [0]: fetch_empty_flat)
    "empty_detection_rows": {"1.8": "flat", "2.0": "rows", "3": "rows"},
    # a fetched tensor without elements comes back as dims [0] (its LoD kept): Paddle 2.0's
    # fetch op (fetch_op.cc DataCopy) copies only tensors with elements; or as it is (1.8:
    # not measured beyond empty_detection_rows; 3.3.1 measured: [0, 6] stays)
    "fetch_empty_flat": {"1.8": False, "2.0": True, "3": False},
    # multiclass_nms3's Out and Index carry the images' LoD, as multiclass_nms2's (2.0: one
    # kernel for both), or none (3.3.1)
    "multiclass_nms3_lod": {"1.8": False, "2.0": True, "3": False},
    # fluid.layers.roi_pool in dynamic mode returns (Out, Argmax) (2.0's dygraph branch)
    # or Out alone, as in static mode (1.8.5: no dygraph branch; 3: no fluid.layers)
    "roi_pool_eager_argmax": {"1.8": False, "2.0": True, "3": False},
    # FLAGS_check_nan_inf's error for a nan / inf output: 1.8.5's EnforceNotMet, or 2.0's
    # PreconditionNotMet, a plain RuntimeError "There are `nan` or `inf` in tensor (VAR) of
    # operator (OP)." (3: not measured, refimpl's EnforceNotMet kept)
    "nan_inf_error": {"1.8": "EnforceNotMet", "2.0": "RuntimeError", "3": "EnforceNotMet"},
    # generate_proposals: an image none of whose boxes passes min_size / the image bounds
    # gives one all-zero proposal with score 0 (2.x, 3), or no proposal (1.8.5)
    "proposals_of_empty_image": {"1.8": "none", "2.0": "zero_row", "3": "zero_row"},
    # the truth value of a static `x == y` / `x != y` a script asks for (framework/
    # math_patch.py): True, as every Paddle 1.8 and 2.0 Variable is (no __bool__), or
    # Python's identity test (3: 3.3.1's PIR Values refuse bool(); refimpl's own code
    # always gets the identity test)
    "variable_comparison_truth": {"1.8": "always", "2.0": "always", "3": "identity"},
    # a dygraph-only method of a static Variable (detach, numpy, ...): a plain AssertionError
    # whose text advises fluid.dygraph.guard() (1.8.5, measured) or turning off
    # enable_static (2.0's fake_interface_only; their test_detach compares type and text),
    # or refimpl's DygraphOnlyError
    "dygraph_only_error": {"1.8": "guard", "2.0": "enable_static", "3": "refimpl"},
    # numpy() of a Variable declared with block.create_var inside fluid.dygraph.guard (it
    # holds no value): 1.8.5's EnforceNotMet (measured), or ValueError (release/2.0's
    # VarBase.numpy raises InvalidArgument, which 2.0's pybind/exception.cc turns into a
    # ValueError; its test_imperative_basic asserts the exact type; 3 not measured)
    "declared_var_numpy_error": {"1.8": "EnforceNotMet", "2.0": "ValueError",
                                 "3": "ValueError"},
    # a fluid.layers function called in static mode on an eager Tensor (one made inside a
    # dygraph guard that has closed): runs it eagerly (refimpl's rule that an op follows its
    # inputs; 1.8.5's check_type lets a VarBase through and its op then fails), or the
    # TypeError of release/2.0's data_feeder.check_type ("Please use `with
    # fluid.dygraph.guard()` ..."; 3.3.1's check_type has the same clause)
    "static_layer_eager_input": {"1.8": "run", "2.0": "TypeError", "3": "TypeError"},
    # the parameters of a fluid.dygraph.static_runner.StaticModelRunner: named after their
    # program variables and @LOADED (1.8.5), or renamed with new unique names as release/2.0's
    # loader (dygraph/io.py's _rename_var_program_desc) renames the persistables; 3 has no
    # StaticModelRunner (kept 2.0's)
    "static_runner_param_names": {"1.8": "suffixed", "2.0": "renamed", "3": "renamed"},
    # paddle.grad(create_graph=True) through an op whose grad op Paddle 2.0 cannot
    # differentiate (sigmoid, tanh, group_norm, mean, matmul_v2, ...: not in
    # double_backward.PADDLE_20_DOUBLE_GRAD_OPS): recorded as any other op (refimpl records
    # every backward; 1.8.5 refuses such ops too, not reproduced), or 2.0's RuntimeError
    "double_grad_ops": {"1.8": "all", "2.0": "paddle_2_0", "3": "all"},
    # the op paddle.nn.functional.linear multiplies with: 2.0's matmul (v1, alpha 1; it has
    # a double grad there, matmul_v2 has none) or matmul_v2 (3.3.1); 1.8 has no F.linear
    "linear_op": {"1.8": "matmul", "2.0": "matmul", "3": "matmul_v2"},
    # generate_proposal_labels with is_cascade_rcnn and no MaxOverlap: 1.8.5's cascade form
    # (no MaxOverlap input there; the RpnRois begin with the ground truth), or refused when
    # the program is built (2.0's InferShape and layer; 3.3.1 has no such op: 2.x's rule)
    "cascade_rcnn_max_overlap": {"1.8": "optional", "2.0": "required", "3": "required"},
    # static cond whose branches return different dtypes at one position: allowed, the
    # value being the taken branch's (1.8; 2.0's own test_cond relies on it too), or
    # refused (refimpl's rule under 3)
    "cond_branch_dtypes": {"1.8": "either", "2.0": "either", "3": "same"},
    # program_guard leaves the mode as it is (1.8.5 and 2.0: under fluid.dygraph.guard the
    # layers built inside still run eagerly; 2.0's framework.py only switches programs),
    # or is static inside (refimpl's rule for 3 scripts that build programs without
    # enable_static())
    "program_guard_mode": {"1.8": "unchanged", "2.0": "unchanged", "3": "static"},
    # fluid.data / fluid.layers.data / paddle.static.data in a dynamic mode the script asked
    # for inside a program_guard: they switch to static mode (1.8.5's have no mode check:
    # refimpl's rule), or refuse (2.0's static_only decorator: an AssertionError)
    "data_static_only": {"1.8": False, "2.0": True, "3": True},
    # fluid.layers.batch_norm given a Variable momentum: ignored, the op keeping its
    # default 0.9 (1.8.5 and 2.0 misspell the MomentumTensor slot), or refused (refimpl
    # has no MomentumTensor input)
    "batch_norm_momentum_variable": {"1.8": "ignored", "2.0": "ignored", "3": "refused"},
    # static while_loop updates the caller's loop variables in place (1.8), or loops on
    # copies so they keep their values (3, while FLAGS_enable_pir_api is on: 3.3.1's legacy
    # IR loops in place, measured); tensor arrays are updated in place in both
    "while_loop_in_place": {"1.8": True, "2.0": True, "3": False},
    # while_grad: a loop variable the body overwrites without reading keeps its gradient
    # for the steps before (1.8.5 measured, 2.0's test_while_loop_op expects it: the
    # gradients of what the body reads add up over every step), or has none there, the
    # chain rule (3.3.1's PIR while, measured; with FLAGS_enable_pir_api off, the legacy
    # while_grad, the former: the early-2024 test_while_loop_op expects it)
    "while_grad_keeps_unread_out_grads": {"1.8": True, "2.0": True, "3": False},
    # paddle.optimizer's learning_rate: anything fluid's optimizers take (1.8, where they
    # are the same classes), or a float / an LRScheduler only, a TypeError otherwise (2.0's
    # and 3.3.1's Optimizer.__init__; 3.3.1 measured: an int and a Tensor refused)
    "paddle_optimizer_lr_types": {"1.8": "any", "2.0": "float_or_scheduler",
                                  "3": "float_or_scheduler"},
    # the ftrl op given a SelectedRows Grad: refused (1.8.5, measured: its kernel takes
    # LoDTensors only) or the listed rows updated (2.0's sparse kernel, test_ftrl_op's
    # TestSparseFTRLOp; 3.3.1 not measured, taken as 2.0)
    "ftrl_selected_rows": {"1.8": False, "2.0": True, "3": True},
    # a Python operator on two tensors (static or eager) of different dtypes: the other
    # operand is cast to the dtype of the one whose method runs (1.8; 2.0 too, but for an
    # eager + - * / @ with a complex operand, which the op promotes: cast_or_complex), or
    # two floats are both made the wider one and other pairs refused (3.3.1: TypeError)
    "operator_operand_cast": {"1.8": "cast", "2.0": "cast_or_complex",
                              "3": "promote_floats"},
    # paddle.load in dynamic mode returns a state dict's arrays as ndarrays (2.0.0's io.py
    # unpickles them as they are) or as Tensors (3.3.1, measured)
    "paddle_load_tensors": {"1.8": False, "2.0": False, "3": True},
    # paddle.save takes only a dict (2.0.0: NotImplementedError otherwise) or any object
    # (3.3.1, measured: a list); 1.8 has no paddle.save, taken as 2.0
    "paddle_save_objects": {"1.8": "dict", "2.0": "dict", "3": "any"},
    # an int tensor with a float number (any operator), or divided by any number, is cast
    # to float32 first (2.0, 3); or the number takes the tensor's dtype (1.8: + - * refuse
    # a fractional one, / ** // % truncate it)
    "int_tensor_scalar_to_float32": {"1.8": False, "2.0": True, "3": True},
    # equal / not_equal of floats: |x - y| < 1e-8 (the difference in the inputs' dtype,
    # compared in double; inf == inf is then False) as Paddle 1.8's kernel, or exact
    "float_equal": {"1.8": "within_1e-8", "2.0": "exact", "3": "exact"},
    # what Layer.sublayers(flag) / named_sublayers(prefix, flag) read a positional flag as:
    # include_sublayers (1.8: False lists the direct children only) or include_self (2.0)
    "sublayers_flag": {"1.8": "include_sublayers", "2.0": "include_sublayers",
                       "3": "include_self"},
    # a dynamic-mode initializer without a seed takes the default main program's random_seed
    # (1.8 and 2.0: their initializers read the program of the block the eager parameter is
    # made in, the main program's global block; 1.8.5 measured), or draws from the global
    # generator that paddle.seed resets (3; the main program's while FLAGS_enable_pir_api is
    # off, initializer.py); a program seed of 0 means the generator
    "eager_init_program_seed": {"1.8": "main", "2.0": "main", "3": "none"},
    # Layer.set_state_dict given a value of another shape: an error before any value is set
    # (1.8: AssertionError), or a warning and that value skipped (2.0, 3.3.1)
    "state_dict_shape_mismatch": {"1.8": "error", "2.0": "skip", "3": "skip"},
    # the Tracer attribute that says whether eager ops are recorded for autograd (what
    # no_grad switches off): _train_mode (1.8) or _has_grad (2.0; _train_mode is its own flag)
    "tracer_grad_attribute": {"1.8": "_train_mode", "2.0": "_has_grad", "3": "_has_grad"},
    # fluid.dygraph.to_variable shares an ndarray unless zero_copy=False (1.8), or copies
    # it, zero_copy=True warning that it is discarded (2.0)
    "to_variable_zero_copy": {"1.8": "shared", "2.0": "discarded", "3": "discarded"},
    # paddle.seed also sets the default programs' random_seed (refimpl's rule), or only
    # seeds the global generator (2.0, whose dynamic initializers read the program seed;
    # 3.3.1, measured: random_seed stays 0, so seed-0 ops draw the global stream)
    "seed_sets_program_seeds": {"1.8": True, "2.0": False, "3": False},
    # what a dropout's mask draws: Paddle 1.8.5's CPU stream (std::minstd_rand through
    # uniform_real_distribution<float>, framework/minstd.py) or Paddle 2.x's
    # (std::mt19937_64, framework/mt19937.py: the global generator's for seed 0)
    "dropout_stream": {"1.8": "minstd", "2.0": "mt19937_64", "3": "mt19937_64"},
    # the uniform, gaussian, randint and randperm draws: Paddle 1.8.5's CPU streams (a
    # fresh std::minstd_rand of the seed through libstdc++'s distributions, randperm's
    # random_shuffle over glibc's rand; framework/minstd.py, libc_rand.py); or Paddle 2.x's
    # std::mt19937_64, seeded or global (framework/mt19937.py)
    "seeded_uniform_stream": {"1.8": "minstd", "2.0": "mt19937_64", "3": "mt19937_64"},
    # the bits of a random op's nonzero seed attr its own mt19937_64 is seeded with: 2.0's
    # kernels cast the int attr to unsigned int (seed -5 seeds 2^32 - 5), 3.3.1's phi
    # kernels pass it on as a 64-bit integer (2^64 - 5; measured)
    "seed_attr_bits": {"1.8": 32, "2.0": 32, "3": 64},
    # paddle.uniform's default min: -1.0 in 2.0 (tensor/random.py), 0 in 3.3.1 (measured)
    "uniform_default_min": {"1.8": -1.0, "2.0": -1.0, "3": 0.0},
    # randint's std::uniform_int_distribution over the mt19937_64 (switch
    # seeded_uniform_stream): libstdc++'s downscaling of a 64-bit draw before GCC 11 (d //
    # ((2^64 - 1) // k), what 2.0's GCC 8 builds ran: read, not measured) or from GCC 11
    # (Lemire's 128-bit product, measured on 3.3.1); unused under 1.8 (numpy's stream)
    "randint_downscaling": {"1.8": "scaling", "2.0": "scaling", "3": "lemire"},
    # the engine of nce's custom_dist sampler (framework/class_samplers.py): a 32-bit
    # std::mt19937 in 1.8.5 (measured), the std::mt19937_64 of its other samplers in
    # 2.x (GetCPURandomEngine; measured on 3.3.1, 2.0 taken as 3.3.1's)
    "custom_sampler_engine_bits": {"1.8": 32, "2.0": 64, "3": 64},
    # truncated_gaussian_random's bounds: mean +- 2 std (2.0's kernel), or its attrs a and
    # b (3.3.1's, TruncatedNormal(a=-2.0, b=2.0) by default), the value clamped to them
    "truncated_normal_bounds": {"1.8": "two_std", "2.0": "two_std", "3": "attrs"},
    # a parameter of shape [] (a ValueError in 1.8 and 2.0, a 0-D parameter in 3)
    "zero_dim_parameters": {"1.8": False, "2.0": False, "3": True},
    # str(Program) is its ProgramDesc text, to_string(True), and a Parameter's to_string
    # details end at do_model_average (1.8); or str is the readable code and the details
    # add need_clip (2.0, 3)
    "fluid_debug_text": {"1.8": True, "2.0": False, "3": False},
    # an op desc also holds, with their defaults, the attributes Paddle's OpProto declares
    # that refimpl's op does not (1.8.5's use_mkldnn, use_cudnn, x_data_format, ...:
    # paddle_op_facts.json attr_defaults), as Paddle 1.8's check_attrs fills them; 3.3.1's
    # op descs hold none of them (2.0 is taken to be as 3.3.1: not measured)
    "undeclared_op_attrs": {"1.8": True, "2.0": False, "3": False},
    # fluid.contrib.layers.rank_attention binds only the op's Out, attr MaxRank (1.8), or
    # also its InputHelp and InsRank and attr MaxSize (2.0, 3)
    "rank_attention_helper_outputs": {"1.8": False, "2.0": True, "3": True},
    # a static program's ClipGradByGlobalNorm: square + reduce_sum of each gradient, named
    # by the layers, in name scope gradient_clip (1.8.5, measured), or squared_l2_norm ops
    # (3.3.1's legacy program cannot be built to measure; 2.0 taken as 3)
    "global_norm_clip_ops": {"1.8": "square_reduce_sum", "2.0": "squared_l2_norm",
                             "3": "squared_l2_norm"},
    # what Layer.register_buffer's TypeError calls the buffer a non-Tensor value should be:
    # 2.0's message "The registered buffer should be a core.VarBase", 3.3.1's "... should
    # be a Paddle.Tensor" (each version's test_base_layer matches its words)
    "buffer_type_words": {"1.8": "a core.VarBase", "2.0": "a core.VarBase",
                          "3": "a Paddle.Tensor"},
    # paddle.optimizer's _dtype (the learning rate's dtype): set by a static minimize from
    # its loss (2.0's source), or at construction from the first parameter, a minimize
    # taking the loss's only when there were none, a float16 one giving a float32 rate
    # (3.3.1's source; its test_optimizer's TestOptimizerDtype)
    "optimizer_dtype_from_parameters": {"1.8": False, "2.0": False, "3": True},
    # cond's branches returning different numbers of values (neither None): 3.3.1's own
    # ValueError "true fn returns 1 vars, but false fn returns 2 vars, which is not equals"
    # (measured, PIR: its legacy cond cannot be built); 2.0 (source) and 1.8 raise the
    # structure mismatch ("Incompatible return values of true_fn and false_fn in cond")
    "cond_output_count_error": {"1.8": False, "2.0": False, "3": True},
    # ClipGradByGlobalNorm's sum of the squared norms: one sum in the first gradient's dtype
    # (1.8.5, 2.0: their source), or one sum per dtype cast to float32 (float64 when some
    # norm is neither float16 nor float32) and the factor cast back for float16 gradients
    # (3.3.1's source; its legacy program cannot be built to measure, the early-2024
    # test_gradient_clip asserts the casts)
    "global_norm_clip_dtypes": {"1.8": "one_sum", "2.0": "one_sum", "3": "by_dtype"},
    # a to_static call renames each eager tensor it is given to the program's input
    # variable (1.8.5's and 2.0's PartialProgramLayer._prepare, read in their source), so a
    # later jit.save(input_spec=[that tensor]) names the recorded input; 3.3.1 leaves the
    # name (measured)
    "partial_program_renames_inputs": {"1.8": True, "2.0": True, "3": False},
    # the unique-name key of an unnamed eager tensor (to_variable, op outputs)
    "eager_tensor_name": {"1.8": "generated_var", "2.0": "generated_tensor",
                          "3": "generated_tensor"},
    # fluid.core.__unittest_throw_exception__: EnforceNotMet "test exception" (1.8), or
    # Paddle 2.0's typed error, a RuntimeError "(PermissionDenied) This is a test of
    # exception" (2.0, 3)
    "unittest_exception": {"1.8": "enforce_not_met", "2.0": "permission_denied",
                           "3": "permission_denied"},
    # nn.PairwiseDistance: p_norm of x - y along axis 1, epsilon only the op's attr (2.0's
    # layer, read in its source; its own test_pairwise_distance compares 4-D inputs with
    # numpy's norm along axis 1), or of x - y + epsilon along the last axis (3.3.1, measured)
    "pairwise_distance_axis": {"1.8": "axis1", "2.0": "axis1", "3": "last_plus_epsilon"},
    # paddle.histogram with bins < 1: an IndexError (2.0's own test_histogram_op asserts it;
    # its OutOfRange check) or the op's InvalidArgument ValueError (3.3.1, measured; 1.8.5
    # has no paddle.histogram, taken as 3)
    "histogram_bins_error": {"1.8": "ValueError", "2.0": "IndexError", "3": "ValueError"},
    # paddle.median's fourth argument: `name` (2.0's signature; 1.8 has no paddle.median,
    # taken as 2.0), or `mode` ('avg' | 'min', then name; 3.3.1)
    "median_mode": {"1.8": False, "2.0": False, "3": True},
    # the 2.0 conv functionals (conv1d-3d, their transposes) refuse an x whose channel dim is
    # unknown when built (2.0's source and its test_functional_conv*; 1.8 taken as 2.0), or
    # take it (3.3.1's F.conv2d / conv3d have no such check, read and measured)
    "conv_channels_known": {"1.8": True, "2.0": True, "3": False},
    # paddle.static.data / fluid.data with a negative dim other than -1 ([-1, -5, -1, -1]):
    # taken as unknown (2.0's static/input.py and fluid/data.py check only None; 1.8 taken
    # as 2.0) or a ValueError (3.3.1: "Only -1 can be used in shape to indicate unknown
    # dimension", measured; Paddle 3's test_functional_conv* error cases)
    "data_dims_below_minus_one": {"1.8": "taken", "2.0": "taken", "3": "refused"},
    # paddle.optimizer.lr.PiecewiseDecay's values: one more than the boundaries (3.3.1,
    # measured: ValueError otherwise; 1.8, which has no paddle.optimizer.lr, taken as 3),
    # or at least one per boundary, the last one also after them all (2.0's source checks
    # nothing; its test_callback_reduce_lr_on_plateau builds PiecewiseDecay([0.001,
    # 0.0001], [5, 10]))
    "piecewise_decay_values": {"1.8": "one_more", "2.0": "per_boundary", "3": "one_more"},
    # paddle.incubate.optimizer.LookAhead's step counter: incremented once per parameter
    # updated (2.0's source appends the increment op in _append_optimize_op), or once per
    # step (3.3.1's _increment_global_var; 1.8 has no LookAhead, taken as 3)
    "lookahead_step_count": {"1.8": "per_step", "2.0": "per_parameter", "3": "per_step"},
    # paddle.static.InputSpec of shape [] (and unbatch down to []): a ValueError (2.0's
    # source and its test_input_spec; 1.8 has no InputSpec, taken as 2.0) or a 0-D spec
    # (3.3.1, measured)
    "input_spec_zero_dim": {"1.8": False, "2.0": False, "3": True},
    # the variable names of a loaded TranslatedLayer's parameters: each saved name with
    # `.load_<n>` from the unique-name generator, so two loads of one model hold distinct
    # variables (2.0's io.py _append_loaded_suffix; its test_jit_save_load
    # TestJitMultipleLoading; 1.8 has no TranslatedLayer, as 2.0), or the saved names
    # (3.3.1, measured in a fresh process: tests/fixtures/paddle_models jit_conv)
    "translated_layer_var_names": {"1.8": "load_suffix", "2.0": "load_suffix", "3": "kept"},
    # fluid.load_dygraph(path, **configs) of a directory without path.pdparams / .pdopt
    # reads save_inference_model's or save_params' files there (model_filename /
    # params_filename configs), as Paddle 2.0's does; or only save_dygraph's files, with
    # keep_name_table its one option (1.8.5, read: inspect.signature and its source)
    "load_dygraph_directories": {"1.8": False, "2.0": True, "3": True},
    # paddle.inference.Predictor.run: run() returns the bool of its run, True (2.0, whose
    # binding takes no inputs), or run() returns None and run([Tensor]) the output Tensors
    # (3.3.1, measured). 1.8 has no Predictor (fluid.core's zero_copy_run returns True)
    "inference_predictor_run": {"1.8": "bool", "2.0": "bool", "3": "none_or_outputs"},
    # the gather op's Index of a dtype other than int32 / int64: refused when the program is
    # built, or built (1.8.5's fluid.layers.gather and gather op check nothing) and refused
    # by the kernel for the fed tensor's dtype when it runs, so a float64-declared index fed
    # int64 gathers (1.8.5, measured: its test_gather_op API_TestGather; a fed float index:
    # "Index holds the wrong type, it holds [double],but desires to be [int] or
    # [int64_t]"); 2.0's layers refuse it (their check), refimpl's op under 2.0 and 3 too
    "gather_index_dtype_checked": {"1.8": "run", "2.0": "build", "3": "build"},
}


def _validated(version, where):
    version = str(version).strip()
    if version == "3.0":
        version = "3"
    if version not in VERSIONS:
        raise ValueError("%s: Paddle version profile must be one of %s, got %r"
                         % (where, ", ".join(VERSIONS), version))
    return version


_current = _validated(os.environ.get(ENV_VAR, DEFAULT), ENV_VAR)


def current():
    """The profile in force: '1.8', '2.0' or '3'."""
    return _current


def release():
    """The Paddle release the current profile follows, e.g. '1.8.5'."""
    return RELEASES[_current]


def set_current(version):
    """Switch the profile for the rest of the process (the runner's --paddle); programs
    built before keep what they were built with."""
    global _current
    _current = _validated(version, "set_current")
    os.environ[ENV_VAR] = _current   # subprocesses (mpirun ranks, workers) follow


@contextlib.contextmanager
def use(version):
    """Run a block under another profile (tests)."""
    global _current
    old, _current = _current, _validated(version, "use")
    try:
        yield _current
    finally:
        _current = old


# The switches whose profile-3 value is Paddle 3.3.1's behaviour under PIR: with
# FLAGS_enable_pir_api off, 3.3.1's legacy IR behaves as 2.0 in each (measured), so a
# switch of these answers 2.0's value then. refimpl builds one IR; only these follow the
# flag.
PIR_FLAG_SWITCHES = frozenset({"static_float_attrs", "static_sparse_gradients",
                               "while_loop_in_place", "while_grad_keeps_unread_out_grads",
                               "eager_init_program_seed", "c_ops_static"})


def switch(name):
    """The value of behaviour `name` under the current profile."""
    return switch_for(name, _current)


def switch_for(name, profile):
    """The value of behaviour `name` under `profile` (and FLAGS_enable_pir_api: see
    PIR_FLAG_SWITCHES)."""
    if profile == "3" and not _pir_programs and name in PIR_FLAG_SWITCHES:
        profile = "2.0"
    try:
        return SWITCHES[name][profile]
    except KeyError:
        raise KeyError("no version switch %r; the switches are %s"
                       % (name, sorted(SWITCHES))) from None


_pir_programs = True     # FLAGS_enable_pir_api (fluid/flags.py sets it)


def set_pir_programs(on):
    global _pir_programs
    _pir_programs = bool(on)


def pir_programs():
    """Whether FLAGS_enable_pir_api is on (Paddle 3's PIR programs; refimpl builds one IR,
    but the switches of PIR_FLAG_SWITCHES, and full_like's legacy dtype check, follow the
    flag)."""
    return _pir_programs
