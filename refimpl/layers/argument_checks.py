"""The argument checks of Paddle 1.8's fluid.layers, under the 1.8 profile, and of 2.0's
under the 2.0 profile (the `fluid_layer_checks` switch; 2.0's are 1.8's changed by
`_CHANGES_20`): which dtypes each layer takes for its Variable arguments
(VARIABLE_DTYPES: layer -> {argument: (position, dtypes, is a list of Variables, when)}),
for its `dtype` arguments (DTYPE_ARGUMENTS: layer -> {argument: (position, dtypes)}) and
the Python types of other arguments (TYPE_ARGUMENTS: layer -> {argument: (position, type
names, when)}) and the dtypes of numpy array arguments (ARRAY_DTYPES: layer -> {argument:
(position, dtypes)}); `when` is None (checked unless None), "variable" (checked when a Variable
is given) or "other" (1.8 checks it under a condition on other things: not checked); the
checks that relate an argument to another or to its value are functions of the bound
arguments (RELATION_CHECKS: layer -> check). A Variable argument
that is not a Variable, a dtype outside the list or an argument of another type is a
TypeError naming the layer, as in Paddle 1.8. The tables are the facts of Paddle 1.8.5's
check_variable_and_dtype / check_dtype / check_type calls, taken from its API.
The 3 profile keeps refimpl's own checks (its ops take float64 where 1.8's CPU kernels
took float32 only), but for the few paddle.* functions of PADDLE_API_3."""
import functools
import inspect

import numpy as np

from .. import versions
from ..dygraph.tensor import Tensor
from ..framework import mode
from ..framework.dtypes import convert_dtype
from ..framework.errors import LayerAssertionError
from ..framework.program import Variable

__all__ = ["checked", "VARIABLE_DTYPES", "DTYPE_ARGUMENTS", "TYPE_ARGUMENTS", "ARRAY_DTYPES",
           "RELATION_CHECKS"]

_TYPES = {"list": list, "tuple": tuple, "int": int, "float": float, "str": str, "bool": bool,
          "dict": dict, "Variable": Variable, "NoneType": type(None), "ndarray": np.ndarray}


# the dtypes Paddle 1.8's convert_dtype knows (complex ones came with 2.0): another is a
# ValueError there, a TypeError of the layer's check in 2.0
_DTYPES_18 = ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
              "uint8")


def _argument(args, kwargs, name, position):
    if name in kwargs:
        return True, kwargs[name]
    if position < len(args):
        return True, args[position]
    return False, None


def _applies(given, value, when):
    if not given or value is None or when == "other":
        return False
    return when is None or isinstance(value, Variable)


def _check_variable(layer, name, value, dtypes):
    if not isinstance(value, Variable):
        raise TypeError("The type of '%s' in %s must be Variable, but received %s"
                        % (name, layer, type(value).__name__))
    if value.dtype is not None and value.dtype.name not in dtypes:
        raise TypeError("The data type of '%s' in %s must be %s, but received %s"
                        % (name, layer, list(dtypes), value.dtype.name))


def _eager_argument(args, kwargs):
    """The position or name of the first argument that is (or lists) an eager Tensor."""
    for key, value in list(enumerate(args)) + list(kwargs.items()):
        values = value if isinstance(value, (list, tuple)) else (value,)
        if any(isinstance(v, Tensor) for v in values):
            return key
    return None


def _refuse_eager_arguments(layer, fn, args, kwargs):
    """Paddle 2.0's check_type: in static mode an eager Tensor argument is a TypeError
    (switch static_layer_eager_input; 1.8 runs the layer eagerly, as its inputs say)."""
    if mode.dynamic or mode.in_translation() or \
            versions.switch("static_layer_eager_input") != "TypeError":
        return
    key = _eager_argument(args, kwargs)
    if key is None:
        return
    if isinstance(key, int):
        names = list(inspect.signature(fn).parameters)
        key = names[key] if key < len(names) else "argument %d" % key
    raise TypeError("Please use `with fluid.dygraph.guard()` as context or "
                    "`fluid.enable_dygraph()` to switch to imperative mode firstly. Because "
                    "received '%s' in %s is a imperative Variable (an eager Tensor given to a "
                    "layer in static mode)." % (key, layer))


def _checks(layer, fn, tables, known_dtypes):
    """The function checking the arguments of `layer` (`fn`) by `tables` (VARIABLE_DTYPES,
    DTYPE_ARGUMENTS, TYPE_ARGUMENTS, ARRAY_DTYPES, RELATION_CHECKS of one Paddle release;
    a `dtype` outside `known_dtypes`, those its convert_dtype knows, is a ValueError), or
    None when they hold nothing for it."""
    variables, dtype_args, type_args, array_args, relations = (
        table.get(layer) or {} for table in tables)
    relation = relations or None
    if not variables and not dtype_args and not type_args and not array_args and not relation:
        return None
    signature = inspect.signature(fn) if relation else None

    def check(args, kwargs):
        for name, (position, dtypes, is_list, when) in variables.items():
            given, value = _argument(args, kwargs, name, position)
            if not _applies(given, value, when):
                continue
            if is_list and isinstance(value, (list, tuple)):
                for i, v in enumerate(value):
                    _check_variable(layer, "%s[%d]" % (name, i), v, dtypes)
            else:
                _check_variable(layer, name, value, dtypes)
        for name, (position, types, when) in type_args.items():
            given, value = _argument(args, kwargs, name, position)
            if not _applies(given, value, when):
                continue
            if not isinstance(value, tuple(_TYPES[t] for t in types)):
                raise TypeError("The type of '%s' in %s must be %s, but received %s"
                                % (name, layer, " or ".join(types), type(value).__name__))
        for name, (position, dtypes) in dtype_args.items():
            given, value = _argument(args, kwargs, name, position)
            if given and value is not None:
                try:
                    dtype = convert_dtype(value)
                except TypeError:
                    dtype = None
                if known_dtypes is not None and dtype not in known_dtypes:
                    raise ValueError("%s: dtype must be any of [%s], got %r"
                                     % (layer, ", ".join(known_dtypes), value))
                if dtype not in dtypes:
                    raise TypeError("The data type of '%s' in %s must be %s, but received %s"
                                    % (name, layer, list(dtypes), dtype))
        for name, (position, dtypes) in array_args.items():
            given, value = _argument(args, kwargs, name, position)
            if given and isinstance(value, np.ndarray) and value.dtype.name not in dtypes:
                raise TypeError("The data type of '%s' in %s must be %s when it is a "
                                "numpy.ndarray, but received %s"
                                % (name, layer, list(dtypes), value.dtype.name))
        if relation:
            arguments = signature.bind(*args, **kwargs)
            arguments.apply_defaults()
            relation(**arguments.arguments)
    return check


def checked(layer, fn):
    """`fn` (the fluid.layers function `layer`) checking its arguments as the profile's
    Paddle does, in static mode only (1.8.5's and 2.0's check_type / check_dtype skip
    dygraph calls): 1.8.5's tables, or 2.0's (1.8.5's with `_CHANGES_20`); and, a function,
    refusing eager Tensors in static mode as 2.0 does (switch static_layer_eager_input).
    A class (fluid.layers.LSTMCell, ...) without checks stays one."""
    checks = {release: _checks(layer, fn, tables, _DTYPES_18 if release == "1.8" else None)
              for release, tables in _TABLES.items()}
    return _checked(fn, checks, layer if inspect.isfunction(fn) else None)


def api_checked(namespace, name, fn):
    """`fn` (the function `name` of paddle's `namespace`: "paddle", "metric", ...)
    checking its arguments in static mode as Paddle 2.0's does under the 2.0 profile
    (PADDLE_API_20), as 3.3.1's under 3 (PADDLE_API_3)."""
    layer = "%s.%s" % (namespace, name)
    return _checked(fn, {"2.0": _checks(layer, fn, PADDLE_API_20, None),
                         "3": _checks(layer, fn, PADDLE_API_3, None)})


def _checked(fn, checks, eager_refused_by=None):
    """`fn` running the profile's check of `checks` (release: check or None) first;
    `eager_refused_by`: the fluid.layers name under which an eager Tensor argument in
    static mode is refused."""
    if not any(checks.values()) and eager_refused_by is None:
        return fn

    @functools.wraps(fn)
    def layer_function(*args, **kwargs):
        if eager_refused_by is not None:
            _refuse_eager_arguments(eager_refused_by, fn, args, kwargs)
        check = checks.get(versions.switch("fluid_layer_checks"))
        if check is not None and not mode.in_dynamic_mode():
            check(args, kwargs)
        return fn(*args, **kwargs)
    # inspect.getfullargspec, which does not follow __wrapped__, reads this: the layer's
    # own parameters (Paddle 3's op tests map an op's kernel signature onto them)
    layer_function.__signature__ = inspect.signature(fn)
    return layer_function


VARIABLE_DTYPES = {
 'Print': {'input': (0, ('bool', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'accuracy': {'input': (0, ('float16', 'float32', 'float64'), False, None)},
 'adaptive_pool2d': {'input': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False,
                               None)},
 'adaptive_pool3d': {'input': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False,
                               None)},
 'add_position_encoding': {'input': (0, ('float32', 'float64'), False, None)},
 'addcmul': {'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
             'tensor1': (1, ('float32', 'float64', 'int32', 'int64'), False, None),
             'tensor2': (2, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'addmm': {'x': (1, ('float32', 'float64'), False, None),
           'y': (2, ('float32', 'float64'), False, None)},
 'affine_channel': {'x': (0, ('float32', 'float64'), False, None)},
 'affine_grid': {'out_shape': (1, ('int32',), False, 'variable'),
                 'theta': (0, ('float32', 'float64'), False, None)},
 'argmax': {'x': (0, ('float32', 'float64', 'int16', 'int32', 'int64', 'uint8'), False, None)},
 'argmin': {'x': (0, ('float32', 'float64', 'int16', 'int32', 'int64', 'uint8'), False, None)},
 'argsort': {'input': (0, ('float32', 'float64', 'int16', 'int32', 'int64', 'uint8'), False,
                       None)},
 'array_read': {'i': (1, ('int64',), False, None)},
 'array_write': {'i': (1, ('int64',), False, None)},
 'assign': {'input': (0, ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'), False,
                      'variable')},
 'auc': {'input': (0, ('float32', 'float64'), False, None),
         'label': (1, ('int32', 'int64'), False, None)},
 'batch_norm': {'input': (0, ('float16', 'float32', 'float64'), False, None)},
 'beam_search': {'pre_ids': (0, ('int64',), False, None),
                 'pre_scores': (1, ('float32', 'float64'), False, None),
                 'scores': (3, ('float32', 'float64'), False, None)},
 'beam_search_decode': {'ids': (0, ('int64',), False, None),
                        'scores': (1, ('float32',), False, None)},
 'box_clip': {'im_info': (1, ('float32', 'float64'), False, None),
              'input': (0, ('float32', 'float64'), False, None)},
 'bpr_loss': {'input': (0, ('float16', 'float32', 'float64'), False, None)},
 'brelu': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'cast': {'x': (0, ('bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'uint8'), False,
                None)},
 'chunk_eval': {'input': (0, ('int64',), False, None), 'label': (1, ('int64',), False, None)},
 'clip': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'clip_by_norm': {'x': (0, ('float32',), False, None)},
 'concat': {'input': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), True, None)},
 'cond': {'pred': (0, ('bool',), False, None)},
 'continuous_value_model': {'input': (0, ('float16', 'float32', 'float64'), False, None)},
 'conv2d': {'input': (0, ('float16', 'float32', 'float64'), False, None)},
 'cos_sim': {'X': (0, ('float32',), False, None), 'Y': (1, ('float32',), False, None)},
 'crf_decoding': {'input': (0, ('float32', 'float64'), False, None)},
 'crop': {'x': (0, ('float32',), False, None)},
 'crop_tensor': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'cross_entropy': {'input': (0, ('float16', 'float32', 'float64'), False, None)},
 'deformable_conv': {'input': (0, ('float32', 'float64'), False, None),
                     'offset': (1, ('float32', 'float64'), False, None)},
 'deformable_roi_pooling': {'input': (0, ('float32', 'float64'), False, None),
                            'rois': (1, ('float32', 'float64'), False, None),
                            'trans': (2, ('float32', 'float64'), False, None)},
 'density_prior_box': {'input': (0, ('float32', 'float64'), False, None)},
 'dist': {'x': (0, ('float32', 'float64'), False, None),
          'y': (1, ('float32', 'float64'), False, None)},
 'dot': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
         'y': (1, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'dropout': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'dynamic_gru': {'h_0': (7, ('float32', 'float64'), False, 'variable'),
                 'input': (0, ('float32', 'float64'), False, None)},
 'dynamic_lstm': {'c_0': (3, ('float32', 'float64'), False, 'variable'),
                  'h_0': (2, ('float32', 'float64'), False, 'variable'),
                  'input': (0, ('float32', 'float64'), False, None)},
 'dynamic_lstmp': {'c_0': (14, ('float32', 'float64'), False, 'variable'),
                   'h_0': (13, ('float32', 'float64'), False, 'variable'),
                   'input': (0, ('float32', 'float64'), False, None)},
 'edit_distance': {'input': (0, ('int64',), False, None),
                   'label': (1, ('int64',), False, None)},
 'elu': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'embedding': {'input': (0, ('int64',), False, None)},
 'equal': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
           'y': (1, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'expand': {'x': (0, ('bool', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'expand_as': {'target_tensor': (1, ('bool', 'float32', 'float64', 'int32', 'int64'), False,
                                 None),
               'x': (0, ('bool', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'fill_constant': {'shape': (0, ('int32', 'int64'), False, 'variable')},
 'flatten': {'x': (0, ('float32', 'float64', 'int32', 'int64', 'int8'), False, None)},
 'fsp_matrix': {'x': (0, ('float32', 'float64'), False, None),
                'y': (1, ('float32', 'float64'), False, None)},
 'gather_tree': {'ids': (0, ('int32', 'int64'), False, None),
                 'parents': (1, ('int32', 'int64'), False, None)},
 'generate_proposal_labels': {'gt_classes': (1, ('int32',), False, None),
                              'is_crowd': (2, ('int32',), False, None),
                              'rpn_rois': (0, ('float32', 'float64'), False, None)},
 'generate_proposals': {'anchors': (3, ('float32',), False, None),
                        'bbox_deltas': (1, ('float32',), False, None),
                        'im_info': (2, ('float32', 'float64'), False, None),
                        'scores': (0, ('float32',), False, None),
                        'variances': (4, ('float32',), False, None)},
 'greater_equal': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
                   'y': (1, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'greater_than': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
                  'y': (1, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'grid_sampler': {'grid': (1, ('float32', 'float64'), False, None),
                  'x': (0, ('float32', 'float64'), False, None)},
 'group_norm': {'input': (0, ('float32', 'float64'), False, None)},
 'gru_unit': {'hidden': (1, ('float32', 'float64'), False, None),
              'input': (0, ('float32', 'float64'), False, None)},
 'hard_shrink': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'hard_sigmoid': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'hard_swish': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'hash': {'input': (0, ('int32', 'int64'), False, None)},
 'hsigmoid': {'input': (0, ('float32', 'float64'), False, None),
              'label': (1, ('int64',), False, None)},
 'huber_loss': {'input': (0, ('float32', 'float64'), False, None),
                'label': (1, ('float32', 'float64'), False, None)},
 'im2sequence': {'input': (0, ('float32',), False, None)},
 'increment': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'index_sample': {'index': (1, ('int32', 'int64'), False, None),
                  'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'index_select': {'index': (1, ('int32', 'int64'), False, None),
                  'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'inplace_abn': {'input': (0, ('float32', 'float64'), False, None)},
 'instance_norm': {'input': (0, ('float32', 'float64'), False, None)},
 'is_empty': {'cond': (1, ('bool',), False, 'variable'),
              'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'isfinite': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'kldiv_loss': {'target': (1, ('float32', 'float64'), False, None),
                'x': (0, ('float32', 'float64'), False, None)},
 'kron': {'out': (2, ('float16', 'float32', 'float64', 'int32', 'int64'), False, 'other'),
          'x': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False, None),
          'y': (1, ('float16', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'l2_normalize': {'x': (0, ('float32', 'float64'), False, None)},
 'label_smooth': {'label': (0, ('float32', 'float64'), False, None)},
 'layer_norm': {'input': (0, ('float32', 'float64'), False, None)},
 'leaky_relu': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'less_equal': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
                'y': (1, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'less_than': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
               'y': (1, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'linear_chain_crf': {'input': (0, ('float32', 'float64'), False, None),
                      'label': (1, ('int64',), False, None)},
 'linspace': {'num': (2, ('int32',), False, 'other'),
              'start': (0, ('float32', 'float64'), False, 'other'),
              'stop': (1, ('float32', 'float64'), False, 'other')},
 'locality_aware_nms': {'bboxes': (0, ('float32', 'float64'), False, None),
                        'scores': (1, ('float32', 'float64'), False, None)},
 'lod_append': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'lod_reset': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'log': {'x': (0, ('float32', 'float64'), False, None)},
 'log1p': {'x': (0, ('float32', 'float64'), False, None)},
 'log_loss': {'input': (0, ('float32',), False, None),
              'label': (1, ('float32',), False, None)},
 'log_softmax': {'input': (0, ('float16', 'float32', 'float64'), False, None)},
 'logical_and': {'x': (1, ('bool',), False, None), 'y': (2, ('bool',), False, None)},
 'logical_not': {'x': (1, ('bool',), False, None), 'y': (2, ('bool',), False, None)},
 'logical_or': {'x': (1, ('bool',), False, None), 'y': (2, ('bool',), False, None)},
 'logical_xor': {'x': (1, ('bool',), False, None), 'y': (2, ('bool',), False, None)},
 'logsumexp': {'x': (0, ('float32', 'float64'), False, None)},
 'lrn': {'input': (0, ('float32',), False, None)},
 'lstm': {'init_c': (2, ('float32', 'float64'), False, None),
          'init_h': (1, ('float32', 'float64'), False, None),
          'input': (0, ('float32', 'float64'), False, None)},
 'lstm_unit': {'cell_t_prev': (2, ('float32', 'float64'), False, None),
               'hidden_t_prev': (1, ('float32', 'float64'), False, None),
               'x_t': (0, ('float32', 'float64'), False, None)},
 'margin_rank_loss': {'label': (0, ('float32',), False, None)},
 'matrix_nms': {'bboxes': (0, ('float32', 'float64'), False, None),
                'scores': (1, ('float32', 'float64'), False, None)},
 'maxout': {'x': (0, ('float32', 'float64'), False, None)},
 'mean': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'mean_iou': {'input': (0, ('int32', 'int64'), False, None),
              'label': (1, ('int32', 'int64'), False, None)},
 'meshgrid': {'input': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), True, None)},
 'mish': {'x': (0, ('float32', 'float64'), False, None)},
 'mse_loss': {'input': (0, ('float32', 'float64'), False, None),
              'label': (1, ('float32', 'float64'), False, None)},
 'mul': {'x': (0, ('float16', 'float32', 'float64'), False, None),
         'y': (1, ('float16', 'float32', 'float64'), False, None)},
 'multiclass_nms': {'bboxes': (0, ('float32', 'float64'), False, None),
                    'scores': (1, ('float32', 'float64'), False, None)},
 'multiplex': {'index': (1, ('int32', 'int64'), False, None),
               'inputs': (0, ('float32', 'float64', 'int32', 'int64'), True, None)},
 'nce': {'input': (0, ('float32', 'float64'), False, None),
         'label': (1, ('int64',), False, None)},
 'not_equal': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
               'y': (1, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'npair_loss': {'anchor': (0, ('float32', 'float64'), False, None),
                'labels': (2, ('float32', 'float64', 'int64'), False, None),
                'positive': (1, ('float32', 'float64'), False, None)},
 'one_hot': {'input': (0, ('int32', 'int64'), False, None)},
 'ones_like': {'out': (1, ('bool', 'float32', 'float64', 'int32', 'int64'), False, 'other'),
               'x': (0, ('bool', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'pad': {'x': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'pad2d': {'input': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'pad_constant_like': {'y': (1, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'pixel_shuffle': {'x': (0, ('float32', 'float64'), False, None)},
 'polygon_box_transform': {'input': (0, ('float32', 'float64'), False, None)},
 'pow': {'factor': (1, ('float32',), False, 'variable'),
         'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'prelu': {'x': (0, ('float32', 'float64'), False, None)},
 'prior_box': {'input': (0, ('float32', 'float64', 'int8', 'uint8'), False, None)},
 'random_crop': {'x': (0, ('float32', 'float64', 'int16', 'int32', 'uint8'), False, None)},
 'randperm': {'out': (1, ('int32', 'int64'), False, None)},   # 1.8: out's dtype is dtype's
 'rank_loss': {'label': (0, ('float32',), False, None),
               'left': (1, ('float32',), False, None),
               'right': (2, ('float32',), False, None)},
 'reduce_all': {'input': (0, ('bool',), False, None)},
 'reduce_any': {'input': (0, ('bool',), False, None)},
 'reduce_mean': {'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'reduce_sum': {'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'relu': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'relu6': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'reshape': {'x': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'retinanet_detection_output': {'anchors': (2, ('float32', 'float64'), True, None),
                                'bboxes': (0, ('float32', 'float64'), True, None),
                                'im_info': (3, ('float32', 'float64'), False, None),
                                'scores': (1, ('float32', 'float64'), True, None)},
 'retinanet_target_assign': {'anchor_box': (2, ('float32', 'float64'), False, None),
                             'anchor_var': (3, ('float32', 'float64'), False, None),
                             'bbox_pred': (0, ('float32', 'float64'), False, None),
                             'cls_logits': (1, ('float32', 'float64'), False, None),
                             'gt_boxes': (4, ('float32', 'float64'), False, None),
                             'gt_labels': (5, ('int32',), False, None),
                             'im_info': (7, ('float32', 'float64'), False, None),
                             'is_crowd': (6, ('int32',), False, None)},
 'reverse': {'x': (0, ('float32', 'float64', 'int32', 'int64', 'uint8'), False, None)},
 'rnn': {'inputs': (1, ('float32', 'float64'), True, None)},
 'roi_align': {'input': (0, ('float32', 'float64'), False, None),
               'rois': (1, ('float32', 'float64'), False, None)},
 'roi_perspective_transform': {'input': (0, ('float32',), False, None),
                               'rois': (1, ('float32',), False, None)},
 'row_conv': {'input': (0, ('float32',), False, None)},
 'rpn_target_assign': {'anchor_box': (2, ('float32', 'float64'), False, None),
                       'anchor_var': (3, ('float32', 'float64'), False, None),
                       'bbox_pred': (0, ('float32', 'float64'), False, None),
                       'cls_logits': (1, ('float32', 'float64'), False, None),
                       'gt_boxes': (4, ('float32', 'float64'), False, None),
                       'im_info': (6, ('float32', 'float64'), False, None),
                       'is_crowd': (5, ('int32',), False, None)},
 'scale': {'x': (0,
                 ('float16', 'float32', 'float64', 'int16', 'int32', 'int64', 'int8', 'uint8'),
                 False, None)},
 'selu': {'x': (0, ('float32', 'float64'), False, None)},
 'sequence_conv': {'input': (0, ('float32', 'float64'), False, None)},
 'sequence_enumerate': {'input': (0, ('int32', 'int64'), False, None)},
 'sequence_expand': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'sequence_expand_as': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'sequence_first_step': {'input': (0, ('float32', 'float64'), False, None)},
 'sequence_last_step': {'input': (0, ('float32', 'float64'), False, None)},
 'sequence_pad': {'pad_value': (1, ('float32', 'float64', 'int32', 'int64'), False, None),
                  'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'sequence_pool': {'input': (0, ('float32',), False, None)},
 'sequence_reshape': {'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'sequence_reverse': {'x': (0, ('float32', 'float64', 'int32', 'int64', 'int8'), False, None)},
 'sequence_scatter': {'index': (1, ('int32', 'int64'), False, None),
                      'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
                      'updates': (2, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'sequence_slice': {'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None),
                    'length': (2, ('int32', 'int64'), False, None),
                    'offset': (1, ('int32', 'int64'), False, None)},
 'sequence_softmax': {'input': (0, ('float32', 'float64'), False, None)},
 'sequence_unpad': {'length': (1, ('int64',), False, None),
                    'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'shape': {'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'shard_index': {'input': (0, ('int64',), False, None)},
 'sigmoid_cross_entropy_with_logits': {'x': (0, ('float16', 'float32', 'float64'), False,
                                             None)},
 'sigmoid_focal_loss': {'fg_num': (2, ('int32',), False, None),
                        'label': (1, ('int32',), False, None),
                        'x': (0, ('float32', 'float64'), False, None)},
 'similarity_focus': {'input': (0, ('float32', 'float64'), False, None)},
 'smooth_l1': {'x': (0, ('float32', 'float64'), False, None),
               'y': (1, ('float32', 'float64'), False, None)},
 'soft_relu': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'softmax': {'input': (0, ('float16', 'float32', 'float64'), False, None)},
 'softshrink': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'space_to_depth': {'x': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False,
                          None)},
 'spectral_norm': {'weight': (0, ('float32', 'float64'), False, None)},
 'square_error_cost': {'input': (0, ('float32', 'float64'), False, None),
                       'label': (1, ('float32', 'float64'), False, None)},
 'squeeze': {'input': (0, ('float16', 'float32', 'float64', 'int32', 'int64', 'int8'), False,
                       None)},
 'stack': {'x': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), True, None)},
 'stanh': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'strided_slice': {'input': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'sum': {'x': (0, ('float32', 'float64', 'int32', 'int64'), True, None)},
 'sums': {'input': (0, ('float32', 'float64', 'int32', 'int64'), True, None),
          'out': (1, ('float32', 'float64', 'int32', 'int64'), False, 'other')},
 'swish': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 't': {'input': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'teacher_student_sigmoid_loss': {'input': (0, ('float32', 'float64'), False, None),
                                  'label': (1, ('float32', 'float64'), False, None)},
 'temporal_shift': {'x': (0, ('float32', 'float64'), False, None)},
 'thresholded_relu': {'x': (0, ('float16', 'float32', 'float64'), False, None)},
 'trace': {'out': (4, ('float16', 'float32', 'float64', 'int32', 'int64'), False, 'other')},
 'transpose': {'x': (0, ('float16', 'float32', 'float64', 'int32', 'int64'), False, None)},
 'unfold': {'x': (0, ('float32', 'float64'), False, None)},
 'uniform_random_batch_size_like': {'input': (0, ('float32', 'float64'), False, None)},
 'unique': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'unique_with_counts': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
 'warpctc': {'input': (0, ('float32',), False, None),
             'input_length': (4, ('int64',), False, 'other'),
             'label': (1, ('int32',), False, None),
             'label_length': (5, ('int64',), False, 'other')},
 'zeros_like': {'out': (1, ('bool', 'float32', 'float64', 'int32', 'int64'), False, 'other'),
                'x': (0, ('bool', 'float32', 'float64', 'int32', 'int64'), False, None)}}

DTYPE_ARGUMENTS = {
 'arange': {'dtype': (3, ('float32', 'float64', 'int32', 'int64'))},
 'cast': {'dtype': (1,
                    ('bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8',
                     'uint8'))},
 'create_global_var': {'dtype': (2,
                                 ('bool', 'float16', 'float32', 'float64', 'int16', 'int32',
                                  'int64', 'int8', 'uint8'))},
 'create_parameter': {'dtype': (1,
                                ('bool', 'float16', 'float32', 'float64', 'int16', 'int32',
                                 'int64', 'int8', 'uint8'))},
 'create_tensor': {'dtype': (0,
                             ('bool', 'float16', 'float32', 'float64', 'int32', 'int64',
                              'int8'))},
 'embedding': {'dtype': (6, ('float16', 'float32', 'float64'))},
 'fill_constant': {'dtype': (1, ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'))},
 'full': {'dtype': (3, ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'))},
 'full_like': {'dtype': (3, ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'))},
 'gaussian_random_batch_size_like': {'dtype': (7, ('float16', 'float32', 'int'))},
 'ones': {'dtype': (1, ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'))},
 'randint': {'dtype': (4, ('int32', 'int64'))},
 'randn': {'dtype': (2, ('float32', 'float64'))},
 'randperm': {'dtype': (2, ('int32', 'int64'))},
 'range': {'dtype': (3, ('float32', 'float64', 'int32', 'int64'))},
 'uniform_random': {'dtype': (1, ('float32', 'float64'))},
 'uniform_random_batch_size_like': {'dtype': (2, ('float32', 'float64'))},
 'zeros': {'dtype': (1, ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'))}}

ARRAY_DTYPES = {'assign': {'input': (0, ('bool', 'float32', 'int32', 'int64'))}}

# multiclass_nms and locality_aware_nms take the same arguments at the same positions
_NMS_TYPES = {'background_label': (8, ('int',), None), 'keep_top_k': (4, ('int',), None),
              'nms_eta': (7, ('float',), None), 'nms_threshold': (5, ('float',), None),
              'nms_top_k': (3, ('int',), None), 'normalized': (6, ('bool',), None),
              'score_threshold': (2, ('float',), None)}

TYPE_ARGUMENTS = {
 'adaptive_pool2d': {'pool_size': (1, ('int', 'list', 'tuple'), None),
                     'pool_type': (2, ('str',), None),
                     'require_index': (3, ('bool',), None)},
 'adaptive_pool3d': {'pool_size': (1, ('int', 'list', 'tuple'), None),
                     'pool_type': (2, ('str',), None),
                     'require_index': (3, ('bool',), None)},
 'affine_channel': {'bias': (2, ('NoneType', 'Variable'), None),
                    'scale': (1, ('NoneType', 'Variable'), None)},
 'allclose': {'atol': (3, ('float',), None),
              'equal_nan': (4, ('bool',), None),
              'rtol': (2, ('float',), None)},
 'array_write': {'x': (0, ('Variable',), None)},
 'assign': {'input': (0, ('Variable', 'ndarray'), None)},
 'beam_search': {'ids': (2, ('NoneType', 'Variable'), None)},
 'clamp': {'max': (2, ('Variable', 'float'), None), 'min': (1, ('Variable', 'float'), None)},
 'clip_by_norm': {'max_norm': (1, ('float',), None)},
 'concat': {'axis': (1, ('Variable', 'int'), None)},
 'cond': {'name': (3, ('NoneType', 'str'), None)},
 'create_global_var': {'shape': (0, ('list', 'ndarray', 'tuple'), None)},
 'create_parameter': {'shape': (0, ('list', 'ndarray', 'tuple'), None)},
 'crop': {'shape': (1, ('Variable', 'list', 'tuple'), None)},
 'crop_tensor': {'offsets': (2, ('NoneType', 'Variable', 'list', 'tuple'), None),
                 'shape': (1, ('Variable', 'list', 'tuple'), None)},
 'cumsum': {'x': (0, ('Variable',), None)},
 'data': {'shape': (1, ('list', 'tuple'), None)},
 'deformable_conv': {'mask': (2, ('NoneType', 'Variable'), None)},
 'deformable_roi_pooling': {'group_size': (5, ('list', 'tuple'), None),
                            'part_size': (8, ('list', 'tuple'), None)},
 'density_prior_box': {'densities': (2, ('list', 'tuple'), None),
                       'fixed_ratios': (4, ('list', 'tuple'), None),
                       'fixed_sizes': (3, ('list', 'tuple'), None)},
 'diag': {'diagonal': (0, ('Variable', 'ndarray'), None)},
 'dist': {'p': (2, ('float', 'int'), None)},
 'dynamic_gru': {'h_0': (7, ('NoneType', 'Variable'), None)},
 'dynamic_lstm': {'c_0': (3, ('NoneType', 'Variable'), None),
                  'h_0': (2, ('NoneType', 'Variable'), None)},
 'dynamic_lstmp': {'c_0': (14, ('NoneType', 'Variable'), None),
                   'h_0': (13, ('NoneType', 'Variable'), None)},
 'equal': {'cond': (2, ('Variable',), None)},
 'expand': {'expand_times': (1, ('Variable', 'list', 'tuple'), None)},
 'fc': {'input': (0, ('Variable', 'list', 'tuple'), None)},
 'fill_constant': {'shape': (0, ('Variable', 'list', 'tuple'), None)},
 'flip': {'dims': (1, ('list', 'tuple'), None), 'input': (0, ('Variable',), None)},
 'full': {'shape': (0, ('Variable', 'list', 'tuple'), None)},
 'gaussian_random_batch_size_like': {'input': (0, ('Variable',), None),
                                     'shape': (1, ('list', 'tuple'), None)},
 'get_tensor_from_selected_rows': {'x': (0, ('Variable',), None)},
 'greater_equal': {'cond': (2, ('Variable',), None)},
 'greater_than': {'cond': (2, ('Variable',), None)},
 'gru_unit': {'size': (2, ('int',), None)},
 'has_inf': {'x': (0, ('Variable',), None)},
 'has_nan': {'x': (0, ('Variable',), None)},
 'image_resize': {'align_corners': (6, ('bool',), None)},
 'interpolate': {'align_corners': (6, ('bool',), None)},
 'is_empty': {'cond': (1, ('NoneType', 'Variable'), None)},
 'kldiv_loss': {'reduction': (2, ('str',), None)},
 'less_equal': {'cond': (2, ('Variable',), None)},
 'less_than': {'cond': (3, ('Variable',), None), 'force_cpu': (2, ('bool',), None)},
 'linspace': {'num': (2, ('Variable', 'float', 'int'), None),
              'start': (0, ('Variable', 'float', 'int'), None),
              'stop': (1, ('Variable', 'float', 'int'), None)},
 'locality_aware_nms': _NMS_TYPES,
 'lod_reset': {'y': (1, ('Variable',), None)},
 'logical_and': {'out': (3, ('Variable',), None)},
 'logical_not': {'out': (3, ('Variable',), None)},
 'logical_or': {'out': (3, ('Variable',), None)},
 'logical_xor': {'out': (3, ('Variable',), None)},
 'lstm': {'hidden_size': (4, ('int',), None),
          'max_len': (3, ('int',), None),
          'num_layers': (5, ('int',), None)},
 'matrix_nms': {'background_label': (8, ('int',), None),
                'gaussian_sigma': (7, ('float',), None),
                'keep_top_k': (5, ('int',), None),
                'nms_top_k': (4, ('int',), None),
                'normalized': (9, ('bool',), None),
                'post_threshold': (3, ('float',), None),
                'score_threshold': (2, ('float',), None),
                'use_gaussian': (6, ('bool',), None)},
 'meshgrid': {'input': (0, ('list',), None)},
 'mish': {'threshold': (1, ('float', 'int'), None)},
 'multiclass_nms': _NMS_TYPES,
 'multiplex': {'inputs': (0, ('list',), None)},
 'not_equal': {'cond': (2, ('Variable',), None)},
 'ones': {'shape': (0, ('list', 'tuple'), None)},
 'pad_constant_like': {'x': (0, ('Variable',), None)},
 'py_func': {'out': (2, ('NoneType', 'Variable', 'list', 'tuple'), None),
             'x': (1, ('NoneType', 'Variable', 'list', 'tuple'), None)},
 'randint': {'shape': (2, ('Variable', 'list', 'tuple'), None)},
 'randn': {'shape': (0, ('list', 'tuple'), None)},
 'random_crop': {'shape': (1, ('Variable', 'list'), None)},
 'randperm': {'stop_gradient': (4, ('bool',), None)},
 'range': {'end': (1, ('Variable', 'float', 'int'), None),
           'start': (0, ('Variable', 'float', 'int'), None),
           'step': (2, ('Variable', 'float', 'int'), None)},
 'reorder_lod_tensor_by_rank': {'rank_table': (1, ('Variable',), None),
                                'x': (0, ('Variable',), None)},
 'reshape': {'actual_shape': (2, ('NoneType', 'Variable'), None),
             'shape': (1, ('Variable', 'list', 'tuple'), None)},
 'resize_bilinear': {'align_corners': (5, ('bool',), None)},
 'resize_nearest': {'align_corners': (5, ('bool',), None)},
 'resize_trilinear': {'align_corners': (5, ('bool',), None)},
 'retinanet_detection_output': {'anchors': (2, ('list',), None),
                                'bboxes': (0, ('list',), None),
                                'scores': (1, ('list',), None)},
 'reverse': {'axis': (1, ('int', 'list', 'tuple'), None)},
 'rnn': {'initial_states': (2, ('NoneType', 'Variable', 'list', 'tuple'), None),
         'inputs': (1, ('Variable', 'list', 'tuple'), None),
         'sequence_length': (3, ('NoneType', 'Variable'), None)},
 'roi_perspective_transform': {'spatial_scale': (4, ('float',), None),
                               'transformed_height': (2, ('int',), None),
                               'transformed_width': (3, ('int',), None)},
 'roll': {'dims': (2, ('list', 'tuple'), 'other'),
          'shifts': (1, ('int', 'list', 'tuple'), None)},   # 1.8 makes an int a list first
 'sequence_concat': {'input': (0, ('list',), None)},
 'sequence_expand_as': {'y': (1, ('Variable',), None)},
 'sign': {'x': (0, ('Variable', 'ndarray'), None)},
 'similarity_focus': {'axis': (1, ('int',), None), 'indexes': (2, ('list',), None)},
 'spectral_norm': {'dim': (1, ('int',), None),
                   'eps': (3, ('float',), None),
                   'power_iters': (2, ('int',), None)},
 'squeeze': {'axes': (1, ('list',), None)},
 'strided_slice': {'axes': (1, ('list', 'tuple'), None),
                   'ends': (3, ('Variable', 'list', 'tuple'), None),
                   'starts': (2, ('Variable', 'list', 'tuple'), None),
                   'strides': (4, ('Variable', 'list', 'tuple'), None)},
 'sum': {'x': (0, ('Variable', 'list', 'tuple'), None)},
 'sums': {'input': (0, ('Variable', 'list', 'tuple'), None)},
 'temporal_shift': {'seg_num': (1, ('int',), None), 'shift_ratio': (2, ('float',), None)},
 'tensor_array_to_tensor': {'input': (0, ('Variable', 'list'), None)},
 'transpose': {'perm': (1, ('list',), None)},
 'uniform_random': {'shape': (0, ('Variable', 'list', 'tuple'), None)},
 'uniform_random_batch_size_like': {'shape': (1, ('list', 'tuple'), None)},
 'zeros': {'shape': (0, ('list', 'tuple'), None)}}


def _addcmul(input, value, **_):
    # 1.8 takes a float `value` for a float input, an int one for an int input
    dtype = input.dtype.name if input.dtype is not None else None
    wanted = {"float32": float, "float64": float, "int32": int, "int64": int}.get(dtype)
    if wanted is not None and not isinstance(value, wanted):
        raise TypeError("The type of 'value' in addcmul must be %s for a %s input, but "
                        "received %s" % (wanted.__name__, dtype, type(value).__name__))


def _crop_tensor(shape, offsets, **_):
    # 1.8 checks each listed offset, then each listed size, that is not a Variable
    for name, values, refused in (("offsets", offsets, lambda v: v < 0),
                                  ("shape", shape, lambda v: v == 0 or v < -1)):
        for i, value in enumerate(values if isinstance(values, (list, tuple)) else ()):
            if isinstance(value, Variable):
                continue
            if not isinstance(value, int):
                raise TypeError("crop_tensor: %s[%d] must be an int or a Variable, got %s"
                                % (name, i, type(value).__name__))
            if refused(value):
                raise ValueError("crop_tensor: %s[%d] must be %s, got %d" % (
                    name, i, ">= 0" if name == "offsets" else "positive or -1", value))


def _get_tensor_from_selected_rows(x, **_):
    if isinstance(x, Variable) and x.type != "SELECTED_ROWS":
        raise TypeError("The type of 'x' in get_tensor_from_selected_rows must be "
                        "SELECTED_ROWS, but received %s (variable %s)" % (x.type, x.name))


def _logsumexp(x, **_):
    if x is None:       # 1.8 asserts it
        raise LayerAssertionError("logsumexp: 'x' cannot be None")


def _randn(shape, **_):
    if isinstance(shape, (list, tuple)) and not shape:      # 1.8 asserts it
        raise LayerAssertionError("randn: the size of argument 'shape' can't be zero, got %r"
                                  % (shape,))


RELATION_CHECKS = {'addcmul': _addcmul,
                   'crop_tensor': _crop_tensor,
                   'get_tensor_from_selected_rows': _get_tensor_from_selected_rows,
                   'logsumexp': _logsumexp,
                   'randn': _randn}


# Paddle 2.0's fluid.layers (release/2.0 at 2967624b) check as 1.8.5's but for these layers,
# whose entry in a table is replaced (None: no such check in 2.0): the layers that left
# fluid.layers for paddle.* or call a paddle API that checks on its own there, and the
# lists 2.0 widened (bool reshape / squeeze / concat / shape, float64 sequence_pool and
# warpctc, ...) or added (center_loss, ctc_greedy_decoder, eye's dtype, linspace's bounds).
# fluid.layers.sum keeps 1.8's check: 2.0's calls paddle.add_n, which checks the same dtypes
_LEFT_FLUID_LAYERS_IN_20 = ('addcmul', 'addmm', 'allclose', 'arange', 'clamp', 'dist', 'dot',
                            'flip', 'full', 'full_like', 'index_sample', 'index_select',
                            'kron', 'leaky_relu', 'linspace', 'log1p', 'log_softmax',
                            'logsumexp', 'maxout', 'meshgrid', 'randint', 'randn',
                            'randperm', 'reduce_mean', 'roll', 't', 'trace')
_ALL_TYPES_20 = ('bool', 'float16', 'float32', 'float64', 'int32', 'int64')
_FLOATS_INTS_20 = ('float32', 'float64', 'int32', 'int64')
_SQUEEZE_TYPES_20 = ('bool', 'float16', 'float32', 'float64', 'int8', 'int32', 'int64')
_GATHER_TYPES_20 = ('float16', 'float32', 'float64', 'int32', 'int64', 'uint8')


def _linspace_20(start, stop, dtype, **_):
    # 2.0 refuses, in static mode, a start / stop whose dtype `dtype` would overflow
    given = {convert_dtype(v.dtype) if isinstance(v, Variable) else None for v in (start, stop)}
    out = convert_dtype(dtype or "float32")
    if ("float64" in given and out in ("float32", "int32")) or (
            "int64" in given and out == "int32"):
        raise ValueError("linspace: start / stop of dtype %s would overflow dtype %s"
                         % ("/".join(sorted(d for d in given if d)), out))


_CHANGES_20 = (
    {'center_loss': {'alpha': (3, ('float32', 'float64'), False, 'variable'),
                     'input': (0, ('float32', 'float64'), False, None),
                     'label': (1, ('int32', 'int64'), False, None)},
     'concat': {'input': (0, _ALL_TYPES_20, True, None)},
     'gather': {'input': (0, _GATHER_TYPES_20, False, None),
                'index': (1, ('int32', 'int64'), False, None)},
     'ctc_greedy_decoder': {'input': (0, ('float32', 'float64'), False, None)},
     'is_empty': {'x': (0, _FLOATS_INTS_20, False, None)},
     'linspace': {'num': (2, ('int32',), False, 'variable'),
                  'start': (0, _FLOATS_INTS_20, False, 'variable'),
                  'stop': (1, _FLOATS_INTS_20, False, 'variable')},
     'reduce_prod': {'input': (0, _FLOATS_INTS_20, False, None)},
     'reshape': {'x': (0, _ALL_TYPES_20, False, None)},
     'sequence_pool': {'input': (0, ('float32', 'float64'), False, None)},
     'shape': {'input': (0, _ALL_TYPES_20, False, None)},
     'size': {'input': (0, _ALL_TYPES_20, False, None)},
     'split': {'input': (0, _ALL_TYPES_20, False, None)},
     'squeeze': {'input': (0, _SQUEEZE_TYPES_20, False, None)},
     'teacher_student_sigmoid_loss': {'input': (0, _FLOATS_INTS_20, False, None),
                                      'label': (1, _FLOATS_INTS_20, False, None)},
     'unsqueeze': {'input': (0, _SQUEEZE_TYPES_20, False, None)},
     'warpctc': dict(VARIABLE_DTYPES['warpctc'],
                     input=(0, ('float32', 'float64'), False, None))},
    {'eye': {'dtype': (3, _ALL_TYPES_20[1:])},
     'linspace': {'dtype': (3, ('int32', 'int64', 'float32', 'float64'))}},
    {'concat': {'axis': (1, ('Variable', 'int'), None),
                'input': (0, ('Variable', 'list', 'tuple'), None)},
     'hash': {'hash_size': (1, ('int',), None), 'num_hash': (2, ('int',), None)},
     'is_empty': None,
     'linspace': {'num': (2, ('Variable', 'int'), None),
                  'start': (0, ('Variable', 'int', 'float'), None),
                  'stop': (1, ('Variable', 'int', 'float'), None)},
     'ones': {'shape': (0, ('Variable', 'list', 'tuple'), None)},    # fill_constant's
     'range': None,
     'split': {'num_or_sections': (1, ('list', 'int', 'tuple'), None),
               'dim': (2, ('int', 'Variable'), None)},
     'squeeze': {'axes': (1, ('list', 'tuple'), None)},
     'transpose': {'perm': (1, ('list', 'tuple'), None)},
     'zeros': {'shape': (0, ('Variable', 'list', 'tuple'), None)}},
    {},
    {'linspace': _linspace_20})


def _tables_20():
    tables = []
    for table, changes in zip((VARIABLE_DTYPES, DTYPE_ARGUMENTS, TYPE_ARGUMENTS, ARRAY_DTYPES,
                               RELATION_CHECKS), _CHANGES_20):
        table = {layer: entry for layer, entry in table.items()
                 if layer not in _LEFT_FLUID_LAYERS_IN_20}
        table.update(changes)
        tables.append(table)
    return tuple(tables)


# the tables of each release the `fluid_layer_checks` switch names
_TABLES = {"1.8": (VARIABLE_DTYPES, DTYPE_ARGUMENTS, TYPE_ARGUMENTS, ARRAY_DTYPES,
                   RELATION_CHECKS),
           "2.0": _tables_20()}


_FLOATS = ('float32', 'float64')
# Paddle 2.0's paddle.* functions (release/2.0 at 2967624b) check their arguments in static
# mode as these tables say, by "namespace.name" (the same formats as the fluid tables):
# their own check_variable_and_dtype / check_type calls, or those of the fluid.layers
# function they call (paddle.concat, paddle.assign, paddle.is_empty, paddle.reshape and
# paddle.tensor.array_* call fluid.layers'; 2.0's test_allclose_op, test_concat_op,
# test_assign_op, test_accuracy_op, test_array_read_write_op, test_is_empty_op,
# test_reshape_op and test_unique assert the TypeErrors)
PADDLE_API_20 = (
    {'metric.accuracy': {'input': (0, ('float16',) + _FLOATS, False, None)},
     'paddle.allclose': {'x': (0, _FLOATS, False, None), 'y': (1, _FLOATS, False, None)},
     'paddle.assign': {'x': (0, _ALL_TYPES_20, False, 'variable')},
     'paddle.concat': {'x': (0, _ALL_TYPES_20, True, None)},
     # its own checks (test_dot_op's TestDotOpError: uint8)
     'paddle.dot': {'x': (0, _FLOATS + ('int32', 'int64'), False, None),
                    'y': (1, _FLOATS + ('int32', 'int64'), False, None)},
     'paddle.gather': {'axis': (2, ('int32', 'int64'), False, 'variable'),
                       'index': (1, ('int32', 'int64'), False, None),
                       'x': (0, _GATHER_TYPES_20, False, None)},
     'paddle.is_empty': {'x': (0, ('float32', 'float64', 'int32', 'int64'), False, None)},
     'paddle.reshape': {'x': (0, _ALL_TYPES_20, False, None)},      # fluid.layers.reshape's
     'paddle.unique': {'x': (0, _FLOATS_INTS_20, False, None)},
     'tensor.array_read': VARIABLE_DTYPES['array_read'],
     'tensor.array_write': VARIABLE_DTYPES['array_write']},
    {'paddle.eye': {'dtype': (2, _ALL_TYPES_20[1:])},      # fluid.layers.eye's (test_eye_op)
     'paddle.unique': {'dtype': (5, ('int32', 'int64'))}},
    {'paddle.allclose': {'atol': (3, ('float',), None), 'equal_nan': (4, ('bool',), None),
                         'rtol': (2, ('float',), None)},
     'paddle.assign': {'x': (0, ('Variable', 'ndarray'), None)},
     'paddle.concat': {'axis': (1, ('Variable', 'int'), None),
                       'x': (0, ('Variable', 'list', 'tuple'), None)},
     'paddle.gather': {'axis': (2, ('Variable', 'int'), None)},
     'paddle.reshape': {'shape': (1, ('Variable', 'list', 'tuple'), None)},
     'paddle.unique': {'axis': (4, ('int',), None), 'return_counts': (3, ('bool',), None),
                       'return_index': (1, ('bool',), None),
                       'return_inverse': (2, ('bool',), None)},
     'tensor.array_write': TYPE_ARGUMENTS['array_write']},
    {'paddle.assign': {'x': (0, ('bool', 'float32', 'int32', 'int64'))}},
    {})
# Paddle 3's paddle.* functions whose static-mode errors its op tests assert, as 3.3.1
# checks them under FLAGS_enable_pir_api=0 (measured: test_is_empty_op, test_multiplex_op,
# test_linspace, test_arange, test_unique_with_counts, test_accuracy_op, test_eye_op,
# test_crop_tensor_op (crop's listed shape and offsets: 1.8's checks); linspace as 2.0's
# fluid.layers.linspace, float16 added); the
# other functions keep refimpl's op checks under 3
PADDLE_API_3 = (
    {'paddle.is_empty': {'x': (0, _FLOATS_INTS_20, False, None)},
     'paddle.multiplex': {'inputs': (0, _FLOATS_INTS_20 + ('complex64', 'complex128'), True,
                                     None),
                          'index': (1, ('int32', 'int64'), False, None)},
     'paddle.linspace': _CHANGES_20[0]['linspace'],
     'paddle.unique': {'x': (0, ('float16',) + _FLOATS_INTS_20, False, None)},
     'paddle.crop': {'x': (0, _FLOATS_INTS_20, False, None)},
     'metric.accuracy': PADDLE_API_20[0]['metric.accuracy'],
     'static.accuracy': PADDLE_API_20[0]['metric.accuracy']},
    {'paddle.arange': {'dtype': (3, ('float16',) + _FLOATS_INTS_20)},
     'paddle.eye': {'dtype': (2, ('float16',) + _FLOATS_INTS_20 + ('complex64', 'complex128'))},
     'paddle.linspace': {'dtype': (3, ('float16',) + _FLOATS_INTS_20)},
     'paddle.unique': {'dtype': (5, ('int32', 'int64'))}},
    {'paddle.linspace': _CHANGES_20[2]['linspace']},
    {},
    {'paddle.crop': _crop_tensor, 'paddle.linspace': _linspace_20})
