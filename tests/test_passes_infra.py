"""Pass infrastructure: apply_passes never touches the user's program; graphviz output."""
import shutil
import subprocess

import pytest

import refimpl as paddle
from refimpl import static
from refimpl.compiler.passes import apply_passes, graphviz


def _program():
    x = static.data("x", [None, 4], "float32")
    loss = paddle.mean(static.nn.fc(x, 3, activation="relu"))
    paddle.optimizer.SGD(0.1).minimize(loss)
    return static.default_main_program(), loss


def test_graphviz_has_every_op_and_variable(tmp_path):
    main, loss = _program()
    strategy = static.BuildStrategy()
    strategy.debug_graphviz_path = str(tmp_path / "graph")
    before = str(main)
    rewritten = apply_passes(main, strategy, protected=[loss.name])
    assert str(main) == before and rewritten is not main
    text = (tmp_path / "graph.dot").read_text()
    assert text.startswith("digraph program {")
    for i, op in enumerate(main.global_block().ops):
        assert '"op:%d"' % i in text and op.type in text
    for name in ("x", "fc_0.w_0", "fc_0.w_0@GRAD", loss.name):
        assert '"var:%s"' % name in text
    assert '"var:fc_0.w_0" -> "op:0";' in text


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz `dot` not installed")
def test_dot_parses_the_graph(tmp_path):
    main, _ = _program()
    path = graphviz.write(main, str(tmp_path / "g"))
    subprocess.run(["dot", "-Tsvg", path, "-o", str(tmp_path / "g.svg")], check=True,
                   timeout=60)
    assert (tmp_path / "g.svg").stat().st_size > 0


def test_no_strategy_means_no_rewrite():
    main, _ = _program()
    assert apply_passes(main, None) is main
