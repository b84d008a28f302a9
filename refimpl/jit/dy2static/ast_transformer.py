"""refimpl's dygraph-to-static source conversion (what Paddle 2.0's ast_transformer.py and
its ifelse / loop / logical / tensor_shape / call / print / assert transformers do; refimpl's
own code, stdlib `ast` only). The function's source is rewritten so that control flow
goes through convert_operators (as paddle.jit.dy2static.*), which decide by the values at run
time: `if` / `while` / `for i in range(...)` / `and` / `or` / `not` / `x.shape` in a test /
len / print / assert / calls of user functions. Statements with return / break /
continue / yield inside stay Python. The converted nodes keep the original line numbers
and file name, so errors point at the user's lines (specs/jit.md, "Dygraph to static")."""
import ast
import inspect
import itertools
import textwrap
import types

from .utils import paddle_package

__all__ = ["convert_function", "converted_source"]

_PADDLE = "paddle"


def _jst(name):
    """paddle.jit.dy2static.<name>, as 2.0's converted code spells it."""
    module = ast.Attribute(value=ast.Attribute(value=ast.Name(id=_PADDLE, ctx=ast.Load()),
                                               attr="jit", ctx=ast.Load()),
                           attr="dy2static", ctx=ast.Load())
    return ast.Attribute(value=module, attr=name, ctx=ast.Load())


def _call(name, *args):
    return ast.Call(func=_jst(name), args=list(args), keywords=[])


def _scoped_walk(nodes):
    """The nodes of these statements, not entering nested functions, classes, lambdas or
    comprehensions (their names are their own)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                      ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                      ast.GeneratorExp)):
                stack.append(child)


def _bound_names(statements):
    """Names the statements bind, sorted."""
    names = []
    for node in _scoped_walk(list(reversed(statements))):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and \
                node.id not in names:
            names.append(node.id)
    return sorted(names)


def _escapes(statements):
    """A statement that leaves the block other than by its end (return, break, continue,
    yield) or a global / nonlocal declaration: such blocks stay Python."""
    loops = (ast.For, ast.While, ast.AsyncFor)
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal,
                             ast.Break, ast.Continue)):
            return True
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda)):
                continue
            if isinstance(node, loops) and isinstance(child, (ast.Break, ast.Continue)):
                continue      # leaves only the inner loop
            stack.append(child)
    return False


def _returns_at_end(statements):
    """The statements end with a return and leave no other way (return, break, ...)."""
    return bool(statements) and isinstance(statements[-1], ast.Return) and \
        not _escapes(statements[:-1]) and not _escapes([statements[-1].value]
                                                        if statements[-1].value else [])


def _escapes_but_return(statements):
    """break / continue / yield / global / nonlocal (a return is handled where it is)."""
    return any(isinstance(node, (ast.Break, ast.Continue, ast.Yield, ast.YieldFrom,
                                 ast.Global, ast.Nonlocal))
               for node in _scoped_walk(statements))


def _constants(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _tuple(names, ctx):
    return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx()) for n in names], ctx=ctx())


def _values_of(names):
    """(value_of('a', lambda: a), ...): the names' values, Undefined where unbound."""
    return ast.Tuple(elts=[_call("value_of", ast.Constant(n), ast.Lambda(
        args=_arguments([]), body=ast.Name(id=n, ctx=ast.Load()))) for n in names],
        ctx=ast.Load())


def _arguments(names):
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _function(name, params, body):
    return ast.FunctionDef(name=name, args=_arguments(params), body=body,
                           decorator_list=[], returns=None, type_comment=None)


class _ShapeInTest(ast.NodeTransformer):
    """x.shape / x.shape[i] in an if / while test: the shape op's value
    (convert_var_shape(x, i, in_control_flow=True))."""

    def visit_Subscript(self, node):
        if _is_shape_dim(node):
            return ast.copy_location(_shape(self.visit(node.value.value), node.slice, True),
                                     node)
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        if node.attr == "shape" and isinstance(node.ctx, ast.Load):
            return ast.copy_location(_shape(self.visit(node.value), ast.Constant(None), True),
                                     node)
        return self.generic_visit(node)

    def visit_Lambda(self, node):
        return node


def _is_runtime_call(func):
    """paddle.jit.dy2static.<name>: a call the conversion wrote."""
    return ast.dump(func.value) == ast.dump(_jst("x").value) \
        if isinstance(func, ast.Attribute) else False


def _constant_int(node):
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _is_shape_dim(node):
    """Whether Subscript `node` reads x.shape[k], k a constant int."""
    value = node.value
    return isinstance(value, ast.Attribute) and value.attr == "shape" and \
        isinstance(value.ctx, ast.Load) and isinstance(node.ctx, ast.Load) and \
        _constant_int(node.slice) is not None


def _shape(value, index, in_control_flow):
    return _call("convert_var_shape", value, index, ast.Constant(in_control_flow))


def _read_outside(definition, loop):
    """The names read in the function outside this loop (after it, or in an enclosing
    loop's next round): those the loop binds first must outlive it, as loop variables."""
    inside = {id(node) for node in _scoped_walk(loop.body)}
    return {node.id for node in _scoped_walk(definition.body)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and
            id(node) not in inside}


class _Converter(ast.NodeTransformer):
    """The rewriting of one function's body (see the module docstring)."""

    def __init__(self, definition):
        self._counter = itertools.count()
        self._definition = definition

    def _name(self, kind):
        return "_jst_%s_%d" % (kind, next(self._counter))

    # nested functions, classes and lambdas keep their own Python
    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        helper = "convert_logical_and" if isinstance(node.op, ast.And) else "convert_logical_or"
        result = node.values[0]
        for value in node.values[1:]:
            result = _call(helper, ast.Lambda(args=_arguments([]), body=result),
                           ast.Lambda(args=_arguments([]), body=value))
        return ast.copy_location(result, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("convert_logical_not", node.operand), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1 \
                and not node.keywords:
            return ast.copy_location(_call("convert_len", node.args[0]), node)
        if isinstance(func, ast.Name) and func.id == "print" and not node.keywords:
            return ast.copy_location(_call("convert_print", *node.args), node)
        if isinstance(func, ast.Name) and func.id in ("bool", "int", "float") and \
                len(node.args) == 1 and not node.keywords:
            return ast.copy_location(_call("convert_var_dtype", node.args[0],
                                           ast.Constant(func.id)), node)
        if isinstance(func, ast.Name) and func.id in ("super", "range", "isinstance",
                                                      "enumerate", "zip", "type") or \
                _is_runtime_call(func):
            return node
        node.func = ast.copy_location(_call("convert_call", func), func)
        return node

    def visit_Subscript(self, node):
        """x.shape[k] (k a constant int): convert_var_shape(x, k), the shape op's value
        where that dim of a static Variable is unknown (-1), so a recorded
        `reshape(x, [x.shape[0], -1])` follows the batch it is run on."""
        self.generic_visit(node)
        if _is_shape_dim(node):
            return ast.copy_location(_shape(node.value.value, node.slice, False), node)
        return node

    def visit_Assign(self, node):
        """`a = b = v` -> `b = v; a = b`, and `x, y = u, w` -> `x = u; y = w` where no
        name assigned is read by the values (2.0's split of assignments, so each name
        gets its own statement)."""
        self.generic_visit(node)
        statements, value = [], node.value
        for target in reversed(node.targets):
            statements.extend(_split_assign(target, value))
            value = _as_load(target)
        return [ast.copy_location(s, node) for s in statements] if len(statements) > 1 \
            else node

    def visit_Assert(self, node):
        self.generic_visit(node)
        args = [node.test] + ([node.msg] if node.msg is not None else [])
        return ast.copy_location(ast.Expr(value=_call("convert_assert", *args)), node)

    def _test(self, test):
        return self.visit(_ShapeInTest().visit(test))

    def block(self, statements):
        """The statements converted; an if whose branches end by returning (without an
        else: the statements after it are its else) returns what convert_ifelse_return
        gives."""
        out = []
        for k, statement in enumerate(statements):
            if isinstance(statement, ast.If) and _returns_at_end(statement.body) and (
                    _returns_at_end(statement.orelse) or
                    not statement.orelse and not _escapes_but_return(statements[k + 1:])):
                out.extend(self._returning_if(statement, statement.orelse or
                                              statements[k + 1:]))
                return out
            converted = self.visit(statement)
            out.extend(converted if isinstance(converted, list) else [converted])
        return out

    def _returning_if(self, node, orelse):
        """`if t: ...; return a` + else (or what follows) -> `return
        convert_ifelse_return(t, true_fn, false_fn, values)`, each branch a function of
        the names the branches bind, returning what the branch returns (None when the
        statements after the if end without a return)."""
        names = _bound_names(node.body + orelse)
        body = self.block(node.body)
        rest = self.block(orelse)
        if not rest or not isinstance(rest[-1], ast.Return):
            rest.append(ast.Return(value=ast.Constant(None)))
        true_name, false_name = self._name("true"), self._name("false")
        call = _call("convert_ifelse_return", self._test(node.test),
                     ast.Name(id=true_name, ctx=ast.Load()),
                     ast.Name(id=false_name, ctx=ast.Load()), _values_of(names))
        return [_located(s, node) for s in (_function(true_name, names, body),
                                            _function(false_name, names, rest),
                                            ast.Return(value=call))]

    def visit_If(self, node):
        if _escapes(node.body) or _escapes(node.orelse):
            self.generic_visit(node)
            return node
        test = self._test(node.test)
        names = _bound_names(node.body + node.orelse)
        body = [self.visit(s) for s in node.body]
        orelse = [self.visit(s) for s in node.orelse]
        true_name, false_name = self._name("true"), self._name("false")
        ret = ast.Return(value=_tuple(names, ast.Load))
        true_fn = _function(true_name, names, _flat(body) + [ret])
        false_fn = _function(false_name, names, _flat(orelse) + [ret])
        call = _call("convert_ifelse", test, ast.Name(id=true_name, ctx=ast.Load()),
                     ast.Name(id=false_name, ctx=ast.Load()), _values_of(names),
                     _constants(names))
        out = ast.Assign(targets=[_tuple(names, ast.Store)], value=call) if names \
            else ast.Expr(value=call)
        return [_located(s, node) for s in (true_fn, false_fn, out)]

    def _loop(self, node, test, body, before=()):
        names = _bound_names(body)
        outlive = sorted(set(names) & _read_outside(self._definition, node))
        cond_name, body_name = self._name("cond"), self._name("body")
        cond_fn = _function(cond_name, names, [ast.Return(value=test)])
        body_fn = _function(body_name, names, _flat([self.visit(s) for s in body]) +
                            [ast.Return(value=_tuple(names, ast.Load))])
        call = _call("convert_while_loop", ast.Name(id=cond_name, ctx=ast.Load()),
                     ast.Name(id=body_name, ctx=ast.Load()), _values_of(names),
                     _constants(names), _constants(outlive))
        out = ast.Assign(targets=[_tuple(names, ast.Store)], value=call)
        return [_located(s, node) for s in list(before) + [cond_fn, body_fn, out]]

    def visit_While(self, node):
        if node.orelse or _escapes(node.body):
            self.generic_visit(node)
            return node
        return self._loop(node, self._test(node.test), node.body)

    def visit_For(self, node):
        """for i in range(...): a while over i (as 2.0 converts it: i is stop after the
        loop)."""
        it = node.iter
        if node.orelse or _escapes(node.body) or not isinstance(node.target, ast.Name) or \
                not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                     it.func.id == "range" and 1 <= len(it.args) <= 3 and not it.keywords):
            self.generic_visit(node)
            return node
        args = [self.visit(a) for a in it.args]
        start, stop, step = (ast.Constant(0), args[0], ast.Constant(1)) if len(args) == 1 \
            else (args[0], args[1], args[2] if len(args) == 3 else ast.Constant(1))
        i = node.target.id
        stop_name, step_name = self._name("stop"), self._name("step")
        before = [ast.Assign(targets=[ast.Name(id=i, ctx=ast.Store())], value=start),
                  ast.Assign(targets=[ast.Name(id=stop_name, ctx=ast.Store())], value=stop),
                  ast.Assign(targets=[ast.Name(id=step_name, ctx=ast.Store())], value=step)]
        test = _call("range_condition", ast.Name(id=i, ctx=ast.Load()),
                     ast.Name(id=stop_name, ctx=ast.Load()),
                     ast.Name(id=step_name, ctx=ast.Load()))
        increment = ast.AugAssign(target=ast.Name(id=i, ctx=ast.Store()), op=ast.Add(),
                                  value=ast.Name(id=step_name, ctx=ast.Load()))
        body = node.body + [increment]
        return self._loop(node, test, body, before)


def _split_assign(target, value):
    pairs = isinstance(target, (ast.Tuple, ast.List)) and \
        isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts) \
        and all(isinstance(t, ast.Name) for t in target.elts) and not (
            {t.id for t in target.elts} &
            {n.id for v in value.elts for n in ast.walk(v) if isinstance(n, ast.Name)})
    if not pairs:
        return [ast.Assign(targets=[target], value=value)]
    return [ast.Assign(targets=[t], value=v) for t, v in zip(target.elts, value.elts)]


def _as_load(target):
    """The expression reading what `target` (a name, tuple or list of names, ...) wrote."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return ast.Tuple(elts=[_as_load(t) for t in target.elts], ctx=ast.Load())
    copy = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(copy, target)


def _flat(statements):
    out = []
    for s in statements:
        out.extend(s if isinstance(s, list) else [s])
    return out or [ast.Pass()]


def _located(statement, origin):
    for node in ast.walk(statement):
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            ast.copy_location(node, origin)
    return statement


def _super_explicit(tree, self_name):
    """super() -> super(__class__, self): the converted function is no class body's."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "super" and not node.args and self_name is not None:
            node.args = [ast.Name(id="__class__", ctx=ast.Load()),
                         ast.Name(id=self_name, ctx=ast.Load())]


def _converted_tree(function):
    source = textwrap.dedent(inspect.getsource(function))
    tree = ast.parse(source)
    definition = tree.body[0]
    if not isinstance(definition, ast.FunctionDef):
        raise TypeError("%r is not a def statement" % function)
    if definition.name != function.__code__.co_name or hasattr(function, "__wrapped__"):
        raise TypeError("the source of %r is another function's" % function)
    # the function object is the one the decorators were given: they stay outside
    definition.decorator_list = []
    params = [a.arg for a in definition.args.args]
    _super_explicit(definition, params[0] if params else None)
    definition.body = _flat(_Converter(definition).block(definition.body))
    ast.fix_missing_locations(definition)
    ast.increment_lineno(tree, function.__code__.co_firstlineno - 1)
    return tree


def converted_source(function):
    """The converted function's source (ProgramTranslator.get_code)."""
    from .utils import ast_to_source_code
    return ast_to_source_code(_converted_tree(function))


_COMPILED = {}      # code object -> _compiled's pair: closures of one def share it


def _compiled(function):
    if function.__code__ not in _COMPILED:
        _COMPILED[function.__code__] = _compile(function)
    return _COMPILED[function.__code__]


def _compile(function):
    """(code, display): the code object of a factory that takes `paddle` (refimpl's top
    package, what the converted code calls through) and the function's free variables
    and returns the converted function (so it keeps the function's globals); and a
    function compiled from the converted source alone, whose source inspect shows."""
    from . import logging_utils
    from .utils import ast_to_func
    tree = _converted_tree(function)
    logging_utils.log_transformed_code(logging_utils.LOG_AllTransformer, tree,
                                       "All Transformers")
    definition = tree.body[0]
    free = list(function.__code__.co_freevars)
    factory = _function("_jst_factory", [n for n in [_PADDLE] if n not in free] + free,
                        [definition, ast.Return(value=ast.Name(id=definition.name,
                                                               ctx=ast.Load()))])
    module = ast.Module(body=[_located(factory, definition)], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, function.__code__.co_filename, "exec")
    display, _ = ast_to_func(ast.Module(body=[definition], type_ignores=[]), function)
    return next(c for c in code.co_consts if isinstance(c, types.CodeType)), display


def convert_function(function):
    """The converted twin of a plain Python function (same globals, its closure's current
    values, defaults and name). It runs with the original file name and line numbers (so
    tracebacks show the user's lines); inspect.getsource gives the converted source
    (through __wrapped__, a function compiled from that source alone)."""
    code, display = _compiled(function)
    factory = types.FunctionType(code, function.__globals__)
    cells = [c.cell_contents if _filled(c) else None for c in (function.__closure__ or ())]
    top = [] if _PADDLE in function.__code__.co_freevars else [paddle_package()]
    converted = factory(*top, *cells)
    converted.__defaults__ = function.__defaults__
    converted.__kwdefaults__ = function.__kwdefaults__
    converted.__wrapped__ = display
    return converted


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True
