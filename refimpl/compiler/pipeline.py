"""compile_program: the CompiledProgram pipeline as pure rewrites. On a clone of the user's
program: sync batch norm's rename, then the BuildStrategy passes (refimpl/compiler/passes);
then each place gets its own copy with the data-parallel rewrite (data_parallel.py). The user's program is never
modified; running the result is the executor's (refimpl/executor/multi_place.py)."""
from .data_parallel import owners_by_size, rewrite, sync_batch_norm
from .passes import apply_passes

__all__ = ["compile_program"]


def compile_program(program, build_strategy, ranks, nranks, loss_name=None, protected=()):
    """[one Program per local place]: place d is global rank `ranks[d]` of `nranks` devices
    in all (every process's places). `loss_name` None: no data-parallel rewrite (sync
    batch norm still applies). `protected`: names the passes must keep (fetches, loss)."""
    if build_strategy.sync_batch_norm:
        program = sync_batch_norm(program.clone())
    base = apply_passes(program, build_strategy, protected)
    if base is program:
        base = base.clone()
    params = base.global_block().all_parameters()
    owner = owners_by_size([p for p in params if p.trainable], nranks)
    programs = []
    for d, rank in enumerate(ranks):
        prog = base.clone() if d < len(ranks) - 1 else base
        programs.append(rewrite(prog, loss_name, build_strategy, rank, nranks, owner))
    return programs
