"""Paddle's generated eager op functions, run on refimpl's op registry by the tracer.

Two calling conventions, one mechanism each:
- the legacy form (`paddle.fluid.core.ops` in 2.0, `paddle._legacy_C_ops` in 2.3 and
  later): `f(inputs..., counts..., "attr", value, ...)` over the op types of the registry
  (`LegacyOpFunctions`);
- Paddle 3's form (`paddle._C_ops`, 2.3's "final state" functions): `f(x, y, False,
  False)`, positional (or keyword) by the op's signature in Paddle's ops.yaml, under the
  API's name, which is often not the op type's (`matmul` runs `matmul_v2`)
  (`OpFunctions`). `SIGNATURES` maps each name refimpl covers to its op type, its
  arguments in order and the outputs it returns (specs/c_ops.md).
"""
import ast
import inspect

from .. import versions
from ..framework import mode
from ..framework.dtypes import convert_dtype, get_dtype
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from ..ops.registry import get_op_def, is_duplicable, slot_name
from .tensor import Tensor
from .tracer import run_op

__all__ = ["LegacyOpFunctions", "OpFunctions", "SIGNATURES"]


class _Functions:
    """`namespace.<name>` is the op function of `name`, made once; `where` names the
    namespace in errors."""

    def __init__(self, where):
        self._where = where
        self._made = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        made = self._made.get(name)
        if made is None:
            made = self._made[name] = self._function(name)
        return made


class LegacyOpFunctions(_Functions):
    """`f(inputs..., counts..., "attr", value, ...)` runs op type `f` eagerly on Tensors
    given in the op's input order (None for an absent one, a list for a duplicable one),
    then, as Paddle's generated functions take them, the number of outputs of each
    duplicable output slot (split's `num`, distribute_fpn_proposals' one per level), then
    its attributes as name / value pairs; returns its output, or its outputs in order as a
    tuple (a duplicable one as a list)."""

    def _function(self, op_type):
        try:
            op_def = get_op_def(op_type)
        except ValueError:
            raise AttributeError("%s has no op %r" % (self._where, op_type)) from None

        slots = _Slots(op_def)

        def op_function(*args):
            return self._run(slots, args)
        op_function.__name__ = op_type
        return op_function

    def _run(self, slots, args):
        op_def, duplicable = slots.op_def, slots.duplicable
        count = next((i for i, a in enumerate(args) if isinstance(a, str)), len(args))
        given, pairs = args[:count], args[count:]
        tensors, sizes = given[:count - len(duplicable)], given[count - len(duplicable):]
        if (len(tensors) > len(op_def.inputs) or len(pairs) % 2
                or not all(isinstance(n, int) for n in sizes)):
            counts = (", then the number of outputs of each of %s" % duplicable
                      if duplicable else "")
            raise TypeError("%s.%s takes its inputs %s%s, then attribute name / value pairs; "
                            "got %d arguments before the first name and %d after"
                            % (self._where, op_def.type, slots.inputs, counts, count,
                               len(pairs)))
        inputs = {slot: t for slot, t in zip(slots.inputs, tensors) if t is not None}
        return _run(slots, inputs, dict(zip(pairs[::2], pairs[1::2])),
                    dict(zip(duplicable, sizes)), slots.outputs)


class _Slots:
    """An op's slot names, read once per op function (OpDef's input_slots / output_slots
    build their lists at each read)."""

    def __init__(self, op_def):
        self.op_def = op_def
        self.inputs = op_def.input_slots
        self.outputs = op_def.output_slots
        self.duplicable = [slot_name(s) for s in op_def.outputs if is_duplicable(s)]


def _run(slots, inputs, attrs, lengths, returned, in_place=None):
    """Run `slots.op_def` on `inputs` with `attrs`; `lengths`: the number of tensors of each
    duplicable output slot; `in_place`: {output slot: the input tensor it is written into};
    returns the outputs of the slots `returned` (None: a None), one alone, else a tuple (a
    duplicable slot's as a list)."""
    op_def = slots.op_def
    in_place = in_place or {}
    static = [(slot, t) for slot, value in inputs.items()
              for t in (value if isinstance(value, (list, tuple)) else (value,))
              if isinstance(t, Variable) and not isinstance(t, Tensor)]
    builds = versions.switch("c_ops_static") == "pir" and not mode.in_dynamic_mode()
    if static and not builds:
        slot, t = static[0]
        raise TypeError("%s: input %s is the static Variable %r; Paddle's op functions "
                        "run in dynamic mode only (and build PIR programs: "
                        "FLAGS_enable_pir_api on, in static mode)" % (op_def.type, slot,
                                                                       t.name))
    if static:
        # Paddle 3's op functions build the op into the PIR program (switch c_ops_static;
        # pir_utils.IrGuard: here the current block of the one program IR)
        helper = LayerHelper(op_def.type)
        dtype = static[0][1].dtype
        outputs = {slot: [in_place[slot]] if slot in in_place else
                   [helper.create_variable_for_type_inference(dtype)
                    for _ in range(lengths.get(slot, 1))]
                   for slot in slots.outputs}
        helper.append_op(type=op_def.type, inputs=inputs, outputs=outputs, attrs=attrs)
    else:
        outputs = {slot: [in_place[slot]] if slot in in_place else
                   [Tensor(None, False) for _ in range(lengths.get(slot, 1))]
                   for slot in slots.outputs}
        run_op(op_def.type, inputs, outputs, attrs)
    results = tuple(None if slot is None else outputs[slot] if slot in lengths
                    else outputs[slot][0] for slot in returned)
    return results[0] if len(results) == 1 else results


# Paddle 3's name -> (op type, its arguments in order, the output slots it returns[, fixed
# attrs]). An argument is `name[:target][=default]` (Paddle's name, which keywords use): a
# target that is an input slot of the op type takes a tensor (upper-case ones must be, and a
# lower-case one is: sigmoid_cross_entropy_with_logits' pos_weight), another an attr of the
# op type (none: the attr of Paddle's name), `-` an argument refimpl does not use (the
# place: an op runs where its inputs live), `!` one whose default (none given: None) only
# refimpl implements (another value is a ValueError); a default None leaves the op's own
# default. An output `Slot[attr]` is a list of as many tensors as attr's value (a number,
# or a list's length; an input slot's: as many as it was given); `Slot=Input` is written
# into the tensor given for Input and returned (the in-place ops, Paddle's names ending in
# `_`: the optimizers); `-` is an output refimpl's op does not have (a master weight's),
# returned as None.
SIGNATURES = {
    # elementwise binary ops and comparisons (Paddle's axis -1: numpy broadcasting), bmm
    **{name: (op_type, "x:X y:Y", "Out") for name, op_type in (
        ("add", "elementwise_add"), ("subtract", "elementwise_sub"),
        ("multiply", "elementwise_mul"), ("divide", "elementwise_div"),
        ("maximum", "elementwise_max"), ("minimum", "elementwise_min"),
        ("elementwise_pow", "elementwise_pow"), ("remainder", "elementwise_mod"),
        ("floor_divide", "elementwise_floordiv"), ("equal", "equal"),
        ("not_equal", "not_equal"), ("less_than", "less_than"),
        ("greater_than", "greater_than"), ("bmm", "bmm"))},
    "where": ("where", "condition:Condition x:X y:Y", "Out"),
    "matmul": ("matmul_v2", "x:X y:Y transpose_x:trans_x=False transpose_y:trans_y=False",
               "Out"),
    # unary math and activations
    **{name: (name, "x:X", "Out") for name in (
        "relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "square",
        "reciprocal", "sin", "cos", "floor", "ceil", "round", "sign", "erf", "assign")},
    "silu": ("silu", "x:X", "Out"),
    "logsigmoid": ("logsigmoid", "x:X", "Out"),
    "celu": ("celu", "x:X alpha=1.0", "Out"),
    "thresholded_relu": ("thresholded_relu", "x:X threshold=1.0 value=0.0", "Out"),
    "rrelu": ("rrelu", "x:X lower=0.125 upper=0.3333333333333333 is_test=False", "Out"),
    "gumbel_softmax": ("gumbel_softmax", "x:X temperature=1.0 hard=False axis=-1", "Out"),
    "hardswish": ("hard_swish", "x:X", "Out"),
    "gelu": ("gelu", "x:X approximate=False", "Out"),
    "leaky_relu": ("leaky_relu", "x:X negative_slope:alpha=0.02", "Out"),
    "elu": ("elu", "x:X alpha=1.0", "Out"),
    "relu6": ("relu6", "x:X", "Out", {"threshold": 6.0}),
    "selu": ("selu", "x:X scale=1.0507009873554805 alpha=1.6732632423543772", "Out"),
    "softsign": ("softsign", "x:X", "Out"),
    "swish": ("swish", "x:X", "Out"),
    "mish": ("mish", "x:X threshold=20.0", "Out"),      # Paddle's name: lambda
    "softmax": ("softmax", "x:X axis", "Out"),
    "log_softmax": ("log_softmax", "x:X axis=-1", "Out"),
    "scale": ("scale", "x:X scale=1.0 bias=0.0 bias_after_scale=True", "Out"),
    "pow": ("pow", "x:X y:factor=1.0", "Out"),
    "clip": ("clip", "x:X min max", "Out"),
    "cast": ("cast", "x:X dtype:out_dtype", "Out"),
    "cumsum": ("cumsum", "x:X axis=-1 flatten=False exclusive=False reverse=False", "Out"),
    # reductions (an empty axis: every axis, as the reduce ops take it)
    **{name: ("reduce_" + name, "x:X axis:dim=[] keepdim:keep_dim=False", "Out")
       for name in ("mean", "max", "min", "all", "any")},
    "sum": ("reduce_sum", "x:X axis:dim=[] dtype:out_dtype=None keepdim:keep_dim=False",
            "Out"),
    "prod": ("reduce_prod", "x:X dims:dim keep_dim reduce_all", "Out"),
    "mean_all": ("mean", "x:X", "Out"),
    "logsumexp": ("logsumexp", "x:X axis keepdim reduce_all", "Out"),
    "topk": ("top_k_v2", "x:X k=1 axis=-1 largest=True sorted=True", "Out Indices"),
    # 3.3.1's `stable` (refimpl's argsort is stable either way)
    "argsort": ("argsort", "x:X axis=-1 descending=False stable:-=False", "Out Indices"),
    "p_norm": ("p_norm", "x:X porder=2.0 axis=-1 epsilon=1e-12 keepdim=False asvector=False",
               "Out"),
    "numel": ("size", "x:Input", "Out"),
    # shapes and indexing
    "reshape": ("reshape2", "x:X shape", "Out"),
    "transpose": ("transpose2", "x:X perm:axis", "Out"),
    "flatten": ("flatten_contiguous_range", "x:X start_axis=1 stop_axis=1", "Out"),
    "squeeze": ("squeeze2", "x:X axis:axes=[]", "Out"),
    "unsqueeze": ("unsqueeze2", "x:X axis:axes=[]", "Out"),
    "expand": ("expand_v2", "x:X shape=[]", "Out"),
    "tile": ("tile", "x:X repeat_times=[]", "Out"),
    "concat": ("concat", "x:X axis=0", "Out"),
    "stack": ("stack", "x:X axis=0", "Y"),
    "split": ("split", "x:X sections axis", "Out[sections]"),
    "split_with_num": ("split", "x:X num axis", "Out[num]"),
    "unstack": ("unstack", "x:X axis=0 num=0", "Y[num]"),
    "slice": ("slice", "input:Input axes starts ends infer_flags decrease_axis", "Out"),
    "gather": ("gather", "x:X index:Index axis=0", "Out"),
    "scatter": ("scatter", "x:X index:Ids updates:Updates overwrite=True", "Out"),
    "scatter_nd_add": ("scatter_nd_add", "x:X index:Index updates:Updates", "Out"),
    "pad": ("pad", "x:X paddings pad_value=0.0", "Out"),
    "index_select": ("index_select", "x:X index:Index axis:dim=0", "Out"),
    "embedding": ("lookup_table_v2", "x:Ids weight:W padding_idx=-1 sparse:is_sparse=False",
                  "Out"),
    "one_hot": ("one_hot_v2", "x:X num_classes:depth", "Out"),
    # creation and random
    "full": ("fill_constant", "shape value dtype=float32 place:-=None", "Out"),
    "ones": ("fill_constant", "shape dtype=float32 place:-=None", "Out", {"value": 1.0}),
    "zeros": ("fill_constant", "shape dtype=float32 place:-=None", "Out", {"value": 0.0}),
    "full_like": ("fill_any_like", "x:X value dtype=None place:-=None", "Out"),
    "ones_like": ("fill_any_like", "x:X dtype=None place:-=None", "Out", {"value": 1.0}),
    "zeros_like": ("fill_any_like", "x:X dtype=None place:-=None", "Out", {"value": 0.0}),
    "uniform": ("uniform_random", "shape dtype min max seed place:-=None", "Out"),
    "gaussian": ("gaussian_random", "shape mean std seed dtype place:-=None", "Out"),
    # 3.3.1's argument order (a, b after seed); the early-2024 revision had none
    "truncated_gaussian_random": ("truncated_gaussian_random",
                                  "shape mean std seed a b dtype=float32 place:-=None", "Out"),
    # layers
    "dropout": ("dropout", "x:X seed_tensor:Seed p:dropout_prob is_test "
                "mode:dropout_implementation seed fix_seed", "Out"),
    "layer_norm": ("layer_norm", "x:X scale:Scale bias:Bias epsilon=1e-05 begin_norm_axis=1",
                   "Y"),
    "label_smooth": ("label_smooth", "label:X prior_dist:PriorDist epsilon=0.0", "Out"),
    "cross_entropy_with_softmax": (
        "softmax_with_cross_entropy", "input:Logits label:Label soft_label=False "
        "use_softmax:!=True numeric_stable_mode=True ignore_index=-100 axis=-1",
        "Softmax Loss"),
    "conv2d": ("conv2d", "input:Input filter:Filter strides=[1,1] paddings=[0,0] "
               "padding_algorithm=EXPLICIT dilations=[1,1] groups=1 data_format=NCHW",
               "Output"),
    "pool2d": ("pool2d", "x:X kernel_size:ksize strides paddings ceil_mode exclusive "
               "data_format pooling_type global_pooling adaptive padding_algorithm", "Out"),
    "pool3d": ("pool3d", "x:X kernel_size:ksize strides paddings ceil_mode exclusive "
               "data_format pooling_type global_pooling adaptive padding_algorithm", "Out"),
    # (depthwise_conv2d and conv3d take groups before dilations, conv2d after)
    "depthwise_conv2d": ("depthwise_conv2d", "input:Input filter:Filter strides=[1,1] "
                         "paddings=[0,0] padding_algorithm=EXPLICIT groups=1 "
                         "dilations=[1,1] data_format=NCHW", "Output"),
    "conv3d": ("conv3d", "input:Input filter:Filter strides=[1,1,1] paddings=[0,0,0] "
               "padding_algorithm=EXPLICIT groups=1 dilations=[1,1,1] data_format=NCDHW",
               "Output"),
    **{name: (name, "x:Input filter:Filter strides=%s paddings=%s output_padding=[] "
              "output_size=[] padding_algorithm=EXPLICIT groups=1 dilations=%s "
              "data_format=NCHW" % (ones, zeros, ones), "Output")
       for name, ones, zeros in (("conv2d_transpose", "[1,1]", "[0,0]"),
                                 ("conv3d_transpose", "[1,1,1]", "[0,0,0]"))},
    "prelu": ("prelu", "x:X alpha:Alpha data_format=NCHW mode=all", "Out"),
    # Paddle 3's pooling, rearrangement and norm ops (s19layers; 3.3.1's layers' calls)
    "lp_pool2d": ("lp_pool2d", "x:x kernel_size strides paddings ceil_mode exclusive "
                  "data_format pooling_type global_pooling adaptive padding_algorithm "
                  "norm_type", "out"),
    **{name: (name, "x:X indices:Indices ksize strides padding:paddings output_size "
              "data_format", "Out") for name in ("unpool", "unpool3d")},
    **{name: (name, "x:x output_size kernel_size random_u return_mask", "out mask")
       for name in ("fractional_max_pool2d", "fractional_max_pool3d")},
    "fold": ("fold", "x:X output_sizes kernel_sizes strides paddings dilations", "Y"),
    "channel_shuffle": ("channel_shuffle", "x:X groups data_format=NCHW", "Out"),
    "pixel_unshuffle": ("pixel_unshuffle", "x:X downscale_factor data_format=NCHW", "Out"),
    "group_norm": ("group_norm", "x:X scale:Scale bias:Bias epsilon groups "
                   "data_format:data_layout", "Y"),
    "spectral_norm": ("spectral_norm", "weight:Weight u:U v:V dim=0 power_iters=1 eps=1e-12",
                      "Out"),
    # (3.3.1's ceil_mode, which the early-2024 revision lacked, last)
    **{"max_pool%dd_with_index" % n: (
        "max_pool%dd_with_index" % n, "x:X kernel_size:ksize strides=%s paddings=%s "
        "global_pooling=False adaptive=False ceil_mode=False" % (ones, zeros), "Out Mask")
       for n, ones, zeros in ((2, "[1,1]", "[0,0]"), (3, "[1,1,1]", "[0,0,0]"))},
    **{name: (name + "_v2", "x:X out_size:OutSize size_tensor:SizeTensor "
              "scale_tensor:Scale data_format:data_layout=NCHW out_d=-1 out_h=-1 out_w=-1 "
              "scale=[] interp_method=%s align_corners=True align_mode=1"
              % name[:-len("_interp")], "Out")
       for name in ("linear_interp", "bilinear_interp", "trilinear_interp",
                    "nearest_interp", "bicubic_interp")},
    "rnn": ("rnn", "x:Input pre_state:PreState weight_list:WeightList "
            "sequence_length:SequenceLength dropout_state_in:-=None dropout_prob=0.0 "
            "is_bidirec=False input_size=10 hidden_size=100 num_layers=1 mode=RNN_TANH "
            "seed=0 is_test=False", "Out DropoutState State[PreState]"),
    "temporal_shift": ("temporal_shift", "x:X seg_num shift_ratio=0.25 data_format=NCHW",
                       "Out"),
    # losses and metrics
    "bce_loss": ("bce_loss", "input:X label:Label", "Out"),
    "huber_loss": ("huber_loss", "input:X label:Y delta", "Out"),   # (no residual)
    "sigmoid_cross_entropy_with_logits": (
        "sigmoid_cross_entropy_with_logits", "x:X label:Label pos_weight:pos_weight "
        "normalize=False ignore_index=-100", "Out"),
    "squared_l2_norm": ("squared_l2_norm", "x:X", "Out"),
    "accuracy": ("accuracy", "x:Out indices:Indices label:Label", "Accuracy Correct Total"),
    # statistics, scans and searches (3.3.1's ops.yaml order)
    **{name: ("reduce_" + name, "x:X axis:dim=[] keepdim:keep_dim=False", "Out")
       for name in ("amax", "amin")},
    "reduce_as": ("reduce_as", "x target", "out"),
    "cumprod": ("cumprod", "x:X dim exclusive=False reverse=False", "Out"),
    "logcumsumexp": ("logcumsumexp", "x:X axis=-1 flatten=False exclusive=False "
                     "reverse=False", "Out"),
    **{name: (name, "x axis=-1 dtype=int64", "out indices") for name in ("cummax", "cummin")},
    "kthvalue": ("kthvalue", "x:X k=1 axis=-1 keepdim=False", "Out Indices"),
    "mode": ("mode", "x:X axis=-1 keepdim=False", "Out Indices"),
    "nanmedian": ("nanmedian", "x:X axis=[] keepdim=True mode=avg", "Out MedianIndex"),
    "bincount": ("bincount", "x:X weights:Weights minlength=0", "Out"),
    "searchsorted": ("searchsorted", "sorted_sequence:SortedSequence values:Values "
                     "out_int32=False right=False", "Out"),
    "unique_consecutive": ("unique_consecutive", "x:X return_inverse=False "
                           "return_counts=False axis=[] dtype=int64", "Out Index Counts"),
    # linear algebra (einsum's InnerCache and XShape, 3.3.1's kernel intermediates,
    # come back without a value: refimpl's op never writes them)
    "einsum": ("einsum", "x:Operands equation", "Out InnerCache XShape"),
    "yolo_box": ("yolo_box", "x:X img_size:ImgSize anchors=[] class_num=1 conf_thresh=0.01 "
                 "downsample_ratio=32 clip_bbox=True scale_x_y=1.0 iou_aware=False "
                 "iou_aware_factor=0.5", "Boxes Scores"),
    # optimizers, in place (3.3.1's arguments: adam_ / adamw_ take moment2_max and amsgrad,
    # the early-2024 revision had neither); no master weights (multi_precision is accepted:
    # on float32 parameters it changes nothing)
    "sgd_": ("sgd", "param:Param learning_rate:LearningRate grad:Grad master_param:!=None "
             "multi_precision:-=False", "ParamOut=Param -"),
    "adagrad_": ("adagrad", "param:Param grad:Grad moment:Moment learning_rate:LearningRate "
                 "master_param:!=None epsilon=1e-06 multi_precision:-=False",
                 "ParamOut=Param MomentOut=Moment -"),
    "adamax_": ("adamax", "param:Param grad:Grad learning_rate:LearningRate moment:Moment "
                "inf_norm:InfNorm beta1_pow:Beta1Pow master_param:!=None beta1=0.9 "
                "beta2=0.999 epsilon=1e-08 multi_precision:-=False",
                "ParamOut=Param MomentOut=Moment InfNormOut=InfNorm -"),
    "momentum_": ("momentum", "param:Param grad:Grad velocity:Velocity "
                  "learning_rate:LearningRate master_param:!=None mu=0.9 use_nesterov=False "
                  "regularization_method='' regularization_coeff=0.0 "
                  "multi_precision:-=False rescale_grad:!=1.0",
                  "ParamOut=Param VelocityOut=Velocity -"),
    "rmsprop_": ("rmsprop", "param:Param mean_square:MeanSquare grad:Grad moment:Moment "
                 "learning_rate:LearningRate mean_grad:MeanGrad master_param:!=None "
                 "epsilon=1e-10 decay=0.9 momentum=0.0 centered=False "
                 "multi_precision:-=False", "ParamOut=Param MomentOut=Moment "
                 "MeanSquareOut=MeanSquare MeanGradOut=MeanGrad -"),
    "adadelta_": ("adadelta", "param:Param grad:Grad avg_squared_grad:AvgSquaredGrad "
                  "avg_squared_update:AvgSquaredUpdate learning_rate:LearningRate "
                  "master_param:!=None rho=0.95 epsilon=1e-06 multi_precision:-=False",
                  "ParamOut=Param AvgSquaredGradOut=AvgSquaredGrad "
                  "AvgSquaredUpdateOut=AvgSquaredUpdate -"),
    "lamb_": ("lamb", "param:Param grad:Grad learning_rate:LearningRate moment1:Moment1 "
              "moment2:Moment2 beta1_pow:Beta1Pow beta2_pow:Beta2Pow master_param:!=None "
              "skip_update:!=None weight_decay=0.01 beta1=0.9 beta2=0.999 epsilon=1e-06 "
              "always_adapt=False multi_precision:-=False", "ParamOut=Param Moment1Out=Moment1 "
              "Moment2Out=Moment2 Beta1PowOut=Beta1Pow Beta2PowOut=Beta2Pow -"),
    **{name: (name[:-1], "param:Param grad:Grad learning_rate:LearningRate moment1:Moment1 "
              "moment2:Moment2 moment2_max:! beta1_pow:Beta1Pow beta2_pow:Beta2Pow "
              "master_param:!=None skip_update:!=None beta1=0.9 beta2=0.999 epsilon=1e-08 "
              + decay + "lazy_mode=False min_row_size_to_use_multithread:-=1000 "
              "multi_precision:-=False use_global_beta_pow:!=False amsgrad:!=False",
              "ParamOut=Param Moment1Out=Moment1 Moment2Out=Moment2 - Beta1PowOut=Beta1Pow "
              "Beta2PowOut=Beta2Pow -")
       for name, decay in (("adam_", ""),
                           ("adamw_", "lr_ratio=1.0 coeff=0.01 with_decay=False "))},
}

_DTYPE_ATTRS = ("dtype", "out_dtype")
_REQUIRED = inspect.Parameter.empty


def _default(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text          # a bare word: a string (a dtype's or a format's name)


class _Signature:
    """One entry of SIGNATURES, parsed: `params` ([(name, target)]), the Python signature
    that binds a call, the returned outputs ([(slot, count attr or None)])."""

    def __init__(self, name, op_type, args, returned, fixed=None):
        self.op_def = get_op_def(op_type)
        self.slots = _Slots(self.op_def)
        self.fixed = dict(fixed or {})
        self.params, parameters = [], []
        for token in args.split():
            spec, _, default = token.partition("=")
            arg, _, target = spec.partition(":")
            if target[:1].isupper() and target not in self.slots.inputs:
                raise ValueError("SIGNATURES[%r]: %s has no input %s"
                                 % (name, op_type, target))
            self.params.append((arg, target or arg))
            parameters.append(inspect.Parameter(
                arg, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=_default(default) if default else _REQUIRED))
        self.signature = inspect.Signature(parameters)
        self.returned, self.in_place = [], {}
        for token in returned.split():
            token, _, into = token.partition("=")
            slot, _, count = token.partition("[")
            if into:
                if into not in self.slots.inputs or slot not in self.slots.outputs:
                    raise ValueError("SIGNATURES[%r]: %s has no output %s or no input %s"
                                     % (name, op_type, slot, into))
                self.in_place[slot] = into
            self.returned.append((None if slot == "-" else slot, count.rstrip("]") or None))
        self.returned_slots = [slot for slot, _ in self.returned]
        self.name = name

    def call(self, args, kwargs):
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("_C_ops.%s%s: %s" % (self.name, self.signature, e)) from None
        bound.apply_defaults()
        inputs, attrs = {}, dict(self.fixed)
        for position, (arg, target) in enumerate(self.params):
            value = bound.arguments[arg]
            if target == "!":
                default = self.signature.parameters[arg].default
                if default is _REQUIRED:       # (an optional tensor refimpl's op lacks)
                    default = None
                if isinstance(value, Variable) or value != default:   # (a tensor given)
                    raise ValueError("_C_ops.%s(): %s=%r is not implemented in refimpl (only "
                                     "%r)" % (self.name, arg, value, default))
                continue
            if target == "-" or value is None:
                continue
            if target in self.slots.inputs:   # (lp_pool2d's and others' slots are lowercase)
                inputs[target] = self._tensor_argument(arg, position, value)
            else:
                attrs[target] = self._attr_value(target, value)
        lengths = {slot: _count(inputs[count] if count[0].isupper() else attrs[count])
                   for slot, count in self.returned if count}
        in_place = {slot: inputs[into] for slot, into in self.in_place.items()}
        return _run(self.slots, inputs, attrs, lengths, self.returned_slots, in_place)

    def _tensor_argument(self, arg, position, value):
        listed = value if isinstance(value, (list, tuple)) else [value]
        if not listed or not all(isinstance(t, Variable) for t in listed):
            raise ValueError("_C_ops.%s(): argument %r (position %d) must be %s, but got %s"
                             % (self.name, arg, position,
                                "a list of Tensors" if isinstance(value, (list, tuple))
                                else "Tensor", _type_name(value)))
        return list(value) if isinstance(value, (list, tuple)) else value

    def _attr_value(self, attr, value):
        if isinstance(value, Tensor):          # a Scalar or IntArray given as a Tensor
            value = value.numpy().tolist()
        elif isinstance(value, (list, tuple)):
            value = [int(v.numpy().item()) if isinstance(v, Tensor) else v for v in value]
        default = self.op_def.attrs[attr]
        if attr in _DTYPE_ATTRS:
            # the op's attr is a dtype code (VarType) where its default is one (-1: the
            # input's), else a dtype name
            return int(get_dtype(value)) if isinstance(default, int) else convert_dtype(value)
        if isinstance(default, list) and isinstance(value, int):
            return [value]            # an IntArray given as one int (a reduction's axis)
        return value


def _count(value):
    return len(value) if isinstance(value, (list, tuple)) else int(value)


def _type_name(value):
    return "None" if value is None else type(value).__name__


class OpFunctions(_Functions):
    """Paddle 3's `_C_ops.<name>(...)`: the function of SIGNATURES[name], which binds its
    arguments as Paddle's does (positional, or by Paddle's argument names) and runs the op
    eagerly."""

    def _function(self, name):
        entry = SIGNATURES.get(name)
        if entry is None:
            hint = ""
            try:
                get_op_def(name)
                hint = ("; op type %r exists: call it as _legacy_C_ops.%s(inputs..., "
                        "'attr', value, ...)" % (name, name))
            except ValueError:
                pass
            raise AttributeError("%s has no op %r (refimpl covers %d of Paddle 3's, "
                                 "specs/c_ops.md)%s" % (self._where, name, len(SIGNATURES),
                                                        hint))
        signature = _Signature(name, *entry)

        def op_function(*args, **kwargs):
            return signature.call(args, kwargs)
        op_function.__name__ = op_function.__qualname__ = name
        op_function.__signature__ = signature.signature
        op_function.__doc__ = "Paddle 3's _C_ops.%s: runs op %s." % (name, entry[0])
        return op_function

    def __dir__(self):
        return sorted(SIGNATURES)
