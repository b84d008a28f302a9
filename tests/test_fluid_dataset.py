"""fluid.dataset (Paddle 1.8) and Executor.train_from_dataset: MultiSlot text files read
through the pipe command, batched, fed and trained on. The trained values and the desc()
text were printed by Paddle 1.8.5 for the same files, program and settings."""
import sys

import numpy as np
import pytest

from refimpl import fluid
from refimpl.versions import use

# per line: x (dense float32 [3]) as `3 v v v`, then ids (int64 sequence) as `n id...`
FILE_A = "3 1 2 3 2 7 8\n3 4 5 6 1 9\n3 0.5 0.5 1 3 1 2 3\n"
FILE_B = "3 2 2 2 1 4\n"

DESC = '''name: "MultiSlotInMemoryDataFeed"
batch_size: 2
multi_slot_desc {
  slots {
    name: "x"
    type: "float"
    is_dense: true
    is_used: true
    shape: -1
    shape: 3
  }
  slots {
    name: "ids"
    type: "uint64"
    is_used: true
  }
}
pipe_command: "cat"
'''


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.txt").write_text(FILE_A)
    (tmp_path / "b.txt").write_text(FILE_B)
    return [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]


def _program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[3], dtype="float32")
        ids = fluid.layers.data(name="ids", shape=[1], dtype="int64", lod_level=1)
        emb = fluid.layers.embedding(ids, size=[10, 2], param_attr=fluid.ParamAttr(
            name="emb", initializer=fluid.initializer.Constant(0.1)))
        y = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(
            name="w", initializer=fluid.initializer.Constant(0.2)), bias_attr=False)
        loss = fluid.layers.reduce_mean(
            fluid.layers.square(y + fluid.layers.sequence_pool(emb, "sum")))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, [x, ids]


def _dataset(kind, variables, files):
    ds = fluid.DatasetFactory().create_dataset(kind)
    ds.set_use_var(variables)
    ds.set_batch_size(2)
    ds.set_filelist(files)
    ds.set_pipe_command("cat")
    return ds


def test_batches_are_dense_rows_and_id_sequences(files):
    with use("1.8"):
        _, _, variables = _program()
        feeds = list(_dataset("QueueDataset", variables, files)._feeds())
    assert len(feeds) == 2
    np.testing.assert_array_equal(feeds[0]["x"], np.float32([[1, 2, 3], [4, 5, 6]]))
    assert feeds[0]["x"].dtype == np.float32
    ids = feeds[0]["ids"]
    np.testing.assert_array_equal(np.array(ids), [[7], [8], [9]])
    assert ids.recursive_sequence_lengths() == [[2, 1]]
    assert feeds[1]["ids"].recursive_sequence_lengths() == [[3, 1]]


def test_train_from_dataset_matches_paddle_18(files):
    with use("1.8"):
        main, startup, variables = _program()
        scope = fluid.Scope()
        exe = fluid.Executor(fluid.CPUPlace())
        with fluid.scope_guard(scope):
            exe.run(startup)
            exe.train_from_dataset(main, _dataset("QueueDataset", variables, files))
            w = np.array(scope.find_var("w").get_tensor())
            np.testing.assert_allclose(w[:, 0], [-0.039937, -0.264937, -0.458875], atol=1e-6)
            emb = np.array(scope.find_var("emb").get_tensor())[:, 0]
            np.testing.assert_allclose(emb[:5], [0.1, 0.162125, 0.162125, 0.162125, 0.3095],
                                       atol=1e-6)
            memory = _dataset("InMemoryDataset", variables, files)
            memory.load_into_memory()
            assert memory.get_memory_data_size() == 4
            exe.train_from_dataset(main, memory)
            w = np.array(scope.find_var("w").get_tensor())
            np.testing.assert_allclose(w[:, 0], [0.213803, 0.297759, 0.348949], atol=1e-6)
        assert memory.desc() == DESC


def test_data_loader_from_dataset_yields_a_feed_per_place(files):
    with use("1.8"):
        _, _, variables = _program()
        loader = fluid.io.DataLoader.from_dataset(
            _dataset("QueueDataset", variables, files), fluid.cpu_places(1))
        batches = [b for b in loader]
    assert len(batches) == 2 and len(batches[0]) == 1
    np.testing.assert_array_equal(batches[1][0]["x"], np.float32([[0.5, 0.5, 1], [2, 2, 2]]))


def test_data_loader_from_dataset_reads_a_reader_per_place_as_paddle_20(files):
    """Paddle 2.0's IterableDatasetWrapper: a QueueDataset reader per place, each on its
    own files (A: 3 instances, B: 1; batch 2), a step takes one batch from each reader in
    turn and a step that cannot fill the places ends the pass; drop_last drops (and ends
    the reader at) a short batch. InMemoryDataset's readers share the loaded batches."""
    _, _, variables = _program()
    places = fluid.cpu_places(2)
    queue = _dataset("QueueDataset", variables, files)
    assert list(fluid.io.DataLoader.from_dataset(queue, places)) == []      # drop_last
    steps = list(fluid.io.DataLoader.from_dataset(queue, places, drop_last=False))
    assert len(steps) == 1
    np.testing.assert_array_equal(np.array(steps[0][0]["x"]), np.float32([[1, 2, 3], [4, 5, 6]]))
    np.testing.assert_array_equal(np.array(steps[0][1]["x"]), np.float32([[2, 2, 2]]))
    assert steps[0][1]["ids"].shape() == [1, 1] and steps[0][1]["x"].shape() == [1, 3]
    memory = _dataset("InMemoryDataset", variables, files)
    memory.load_into_memory()
    steps = list(fluid.io.DataLoader.from_dataset(memory, places))
    assert len(steps) == 1
    np.testing.assert_array_equal(np.array(steps[0][1]["x"]), np.float32([[0.5, 0.5, 1],
                                                                        [2, 2, 2]]))


def test_bad_lines_and_unloaded_memory_are_named(files, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("3 1 2 3 0\n")
    with use("1.8"):
        _, _, variables = _program()
        with pytest.raises(ValueError, match=r"bad.txt line 1, slot 'ids'.*can not be zero"):
            list(_dataset("QueueDataset", variables, [str(bad)])._feeds())
        memory = _dataset("InMemoryDataset", variables, files)
        with pytest.raises(RuntimeError, match="load_into_memory"):
            memory.local_shuffle()
        with pytest.raises(NotImplementedError, match="local shuffle"):
            _dataset("QueueDataset", variables, files).local_shuffle()
        with pytest.raises(ValueError, match="only supports dtype=float32 and dtype=int64"):
            fluid.DatasetFactory().create_dataset().set_use_var(
                [fluid.layers.data(name="i32", shape=[1], dtype="int32")])


GENERATOR = '''
import sys
from refimpl.fluid.incubate import data_generator as dg


class Rows(dg.MultiSlotDataGenerator):
    def generate_sample(self, line):
        def local_iter():
            xs = line.split()
            yield [("x", [float(v) for v in xs[:3]]), ("ids", [int(v) for v in xs[3:]])]
        return local_iter


Rows().run_from_stdin()
'''


def test_a_data_generator_writes_the_lines_a_dataset_reads(tmp_path):
    script = tmp_path / "gen.py"
    script.write_text(GENERATOR)
    raw = tmp_path / "raw.txt"
    raw.write_text("1 2 3 7 8\n4 5 6 9\n")
    with use("1.8"):
        _, _, variables = _program()
        ds = _dataset("QueueDataset", variables, [str(raw)])
        ds.set_pipe_command("%s %s" % (sys.executable, script))
        # Paddle 1.8.5 writes `3 1.0 2.0 3.0 2 7 8` / `3 4.0 5.0 6.0 1 9` for these rows
        feed, = ds._feeds()
    np.testing.assert_array_equal(feed["x"], np.float32([[1, 2, 3], [4, 5, 6]]))
    assert feed["ids"].recursive_sequence_lengths() == [[2, 1]]


def test_data_generator_lines_and_checks(capsys):
    from refimpl.fluid.incubate import data_generator as dg

    class Words(dg.MultiSlotStringDataGenerator):
        def generate_sample(self, line):
            def local_iter():
                yield [("a", ["1", "x"]), ("b", ["2"])]
            return local_iter

    Words().run_from_memory()
    assert capsys.readouterr().out == "2 1 x 1 2\n"      # as Paddle 1.8.5 writes it
    gen = dg.MultiSlotDataGenerator()
    assert gen._gen_str([("w", [1, 2.5])]) == "2 1 2.5\n" and gen._proto_info == [("w", "float")]
    with pytest.raises(ValueError, match="can not be empty"):
        gen._gen_str([("w", [])])
    with pytest.raises(ValueError, match="require<w>, get<v>"):
        gen._gen_str([("v", [1])])
    with pytest.raises(NotImplementedError, match="MultiSlotDataGenerator"):
        dg.DataGenerator()._gen_str([("w", [1])])


def test_paddle_20_keeps_the_generators_in_fleet():
    from refimpl.distributed import fleet
    from refimpl.fluid.incubate import data_generator as dg
    assert fleet.MultiSlotDataGenerator is dg.MultiSlotDataGenerator
    assert fleet.data_generator is dg


def test_paddle_20_datasets_take_their_settings_at_init(files):
    """paddle.distributed.InMemoryDataset: 2.0's init(**settings), update_settings and
    underscored setters over fluid.dataset's reading; the same training as 1.8's."""
    import refimpl.distributed as dist
    with use("1.8"):
        main, startup, variables = _program()
        memory = dist.InMemoryDataset()
        memory.init(batch_size=5, thread_num=2, pipe_command="cat", use_var=variables)
        memory._init_distributed_settings(parse_ins_id=True, fea_eval=True, candidate_size=7)
        assert (memory.parse_ins_id, memory.fea_eval, memory.record_candidate_size) == \
            (True, True, 7)
        memory.update_settings(batch_size=2)
        assert memory._desc() == DESC
        memory.set_filelist(files)
        memory.load_into_memory()
        assert memory.get_memory_data_size() == 4
        scope = fluid.Scope()
        exe = fluid.Executor(fluid.CPUPlace())
        with fluid.scope_guard(scope):
            exe.run(startup)
            queue = dist.QueueDataset()
            queue.init(batch_size=2, use_var=variables)
            queue.set_filelist(files)
            exe.train_from_dataset(main, queue)
            exe.train_from_dataset(main, memory)
            w = np.array(scope.find_var("w").get_tensor())
        np.testing.assert_allclose(w[:, 0], [0.213803, 0.297759, 0.348949], atol=1e-6)
        with pytest.raises(TypeError, match=r"update_settings: unknown settings \['batch'\]"):
            memory.update_settings(batch=2)
        with pytest.raises(ValueError, match="input_type must be 0"):
            memory.init(input_type=2)


def test_paddle_20_boxps_dataset_takes_the_pv_settings():
    import refimpl.distributed as dist
    box = dist.fleet.BoxPSDataset()
    box.init(batch_size=3, rank_offset="offset", pv_batch_size=8)
    assert box._desc() == ('name: "MultiSlotInMemoryDataFeed"\nbatch_size: 3\n'
                           'pipe_command: "cat"\nrank_offset: "offset"\npv_batch_size: 8\n')
    assert (box.parse_logkey, box.merge_by_sid, box.enable_pv_merge) == (False, False, False)
    with pytest.raises(TypeError, match=r"init: unknown settings \['pv_batch'\]"):
        box.init(pv_batch=2)


def test_slots_shuffle_draws_an_id_slot_from_other_instances(files):
    """Paddle 2.0's SlotsShuffle: nothing without fea_eval; with it, the named uint64 slots
    of every instance come from an instance of the reservoir (record_candidate_size of the
    loaded ones, itself included), the other slots stay; each call starts from the instances
    as loaded. core.get_int_stats' STAT_total_feasign_num_in_mem counts the loaded ids."""
    from refimpl.fluid import core
    with use("1.8"):
        _, _, variables = _program()
        before = core.get_int_stats()["STAT_total_feasign_num_in_mem"]
        memory = _dataset("InMemoryDataset", variables, files)
        memory.load_into_memory()
        loaded = [list(map(list, inst)) for inst in memory._memory]
        stats = core.get_int_stats()
        assert stats["STAT_total_feasign_num_in_mem"] - before == 2 + 1 + 3 + 1
        assert stats["STAT_gpu15_mem_size"] == 0 and len(stats) == 17
        assert core.get_float_stats() == {}
        memory.slots_shuffle(["ids"])        # fea_eval off: nothing changes
        assert memory._memory == loaded
        memory.set_fea_eval(1, True)         # a reservoir of one: the first is its own donor
        id_sets = {tuple(inst[1]) for inst in loaded}
        for _ in range(5):
            memory.slots_shuffle(["ids", "x"])
            shuffled = memory._memory
            assert [inst[0] for inst in shuffled] == [inst[0] for inst in loaded]
            assert shuffled[0][1] == loaded[0][1]
            assert all(tuple(inst[1]) in id_sets for inst in shuffled)
        memory.set_fea_eval(100, True)
        seen = set()
        for _ in range(40):
            memory.slots_shuffle(["ids"])
            seen.add(tuple(memory._memory[3][1]))
        assert seen == id_sets               # the last instance draws from all four
        memory.release_memory()
        assert core.get_int_stats()["STAT_total_feasign_num_in_mem"] == before
