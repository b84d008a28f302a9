"""Paddle 2.0's dygraph_to_static/utils.py helpers that its tests and users call
(refimpl's own code over stdlib `ast`): index_in_list, ast_to_source_code,
is_api_in_module / is_dygraph_api / is_paddle_api / is_numpy_api, ast_to_func. A node of
the `gast` package (what 2.0 and its tests build) is taken too: it is turned into a
stdlib node through gast, imported only then. Paddle 3's _compatible_non_tensor_spec."""
import ast
import importlib
import inspect
import itertools
import linecache

# at module level: static_function imports nothing of dy2static at module level (nor do
# function_spec, partial_program, hapi.layer_program it imports; its converter import is
# inside a function), so this is no cycle in any import order, and jit imports
# static_function two lines after dy2static anyway
from ..static_function import _hashable

_SOURCE_NUMBERS = itertools.count()

__all__ = ["index_in_list", "ast_to_source_code", "ast_to_func", "is_api_in_module",
           "is_dygraph_api", "is_paddle_api", "is_numpy_api", "cmpop_node_to_str",
           "parse_arg_and_kwargs"]


def parse_arg_and_kwargs(function):
    """(argument names, {name: default}) of a function, `self` left out (Paddle 3's helper,
    which its op tests use to call an op's python API from the op's kernel signature)."""
    spec = inspect.getfullargspec(function)
    names = spec.args[1:] if spec.args[:1] == ["self"] else list(spec.args)
    defaults = spec.defaults or ()
    return names, dict(zip(names[len(names) - len(defaults):], defaults))


def index_in_list(array_list, item):
    """The index of item in array_list, -1 when it is not there."""
    try:
        return array_list.index(item)
    except ValueError:
        return -1


def paddle_package():
    """refimpl's top package: what `paddle` names (`refimpl run` aliases it)."""
    return importlib.import_module(__name__.split(".")[0])


def as_stdlib_ast(node):
    """A stdlib ast node of `node` (a stdlib or a gast node: else TypeError)."""
    if isinstance(node, ast.AST):
        return node
    if type(node).__module__.split(".")[0] == "gast":
        import gast
        return gast.gast_to_ast(node)
    raise TypeError("Type of ast_root should be gast.AST or ast.AST, but received %s."
                    % type(node))


def ast_to_source_code(ast_node):
    """The source of an ast (or gast) node, with a newline at its end."""
    node = ast.fix_missing_locations(as_stdlib_ast(ast_node))
    return ast.unparse(node) + "\n"


def ast_to_func(ast_root, dyfunc):
    """(function, file name): the function that the (g)ast module or FunctionDef
    `ast_root` defines, compiled with `dyfunc`'s globals (plus paddle and fluid, as 2.0's
    module of it imports) under a file name of its own whose source linecache holds (so
    inspect.getsource and tracebacks show it)."""
    source = ast_to_source_code(ast_root)
    filename = "<dygraph_to_static %d>" % next(_SOURCE_NUMBERS)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(getattr(dyfunc, "__globals__", {}))
    paddle = paddle_package()
    namespace.setdefault("paddle", paddle)
    namespace.setdefault("fluid", paddle.fluid)
    module = ast.parse(source)
    exec(compile(module, filename, "exec"), namespace)
    name = next(n.name for n in module.body if isinstance(n, ast.FunctionDef))
    return namespace[name], filename


def _called_object(node):
    """The object a Call node's (outermost) function names, evaluated among the paddle
    and numpy names the tests write (paddle, fluid, dygraph, layers, to_variable,
    to_tensor, np, numpy); None when it names something else."""
    node = as_stdlib_ast(node)
    if not isinstance(node, ast.Call):
        raise TypeError("Input non-Call node for is_api_in_module: %s" % type(node).__name__)
    func = node.func
    while isinstance(func, ast.Call):       # convert_call(func)(x): func
        func = func.func
    import numpy
    paddle = paddle_package()
    names = {"paddle": paddle, "fluid": paddle.fluid, "dygraph": paddle.fluid.dygraph,
             "layers": paddle.fluid.layers, "to_variable": paddle.fluid.dygraph.to_variable,
             "to_tensor": paddle.to_tensor, "np": numpy, "numpy": numpy}
    try:
        return eval(compile(ast.Expression(body=func), "<api>", "eval"),
                    {"__builtins__": {}}, names)
    except (NameError, AttributeError, TypeError):
        return None


def _module_of(value):
    module = getattr(value, "__module__", None) or ""
    # refimpl stands for paddle (`refimpl run` aliases it)
    return "paddle" + module[len("refimpl"):] if module.split(".")[0] == "refimpl" else module


def is_api_in_module(node, module_prefix):
    return _module_of(_called_object(node)).startswith(module_prefix)


def is_dygraph_api(node):
    """A call of a fluid.dygraph API (not of dygraph_to_static's own functions)."""
    if is_api_in_module(node, "paddle.fluid.dygraph.dygraph_to_static"):
        return False
    return is_api_in_module(node, "paddle.fluid.dygraph")


def is_paddle_api(node):
    return is_api_in_module(node, "paddle")


def is_numpy_api(node):
    return _module_of(_called_object(node)).startswith("numpy")


_CMPOP_TEXT = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=",
               "Is": "is", "IsNot": "is not", "In": "in", "NotIn": "not in"}


def cmpop_node_to_str(node):
    """The operator text of a comparison-operator node (stdlib ast or gast: by its class
    name); another node: KeyError."""
    return _CMPOP_TEXT[type(node).__name__]


def _compatible_non_tensor_spec(src_spec, desired_spec):
    """Paddle 3: whether two non-tensor arguments of a to_static function call for the
    same program, i.e. have equal cache keys (nested lists and tuples element by element);
    two unhashable values count as compatible, as in 3.3.1."""
    def key(spec):
        try:
            return _hashable(spec)
        except TypeError:
            return None
    return key(src_spec) == key(desired_spec)
