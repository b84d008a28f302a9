"""paddle.fluid.dataset (Paddle 1.8): datasets of MultiSlot text files that
Executor.train_from_dataset / infer_from_dataset run a program over (specs/fluid_misc.md).

Each file goes through the dataset's pipe command (a shell command reading the file on its
stdin; default `cat`), and each output line is one instance: for every variable given to
set_use_var, in order, a count n then n values (floats for a float32 variable, integer ids
for an int64 one). A variable with lod_level 0 is dense: its n values fill one row of its
shape; one with lod_level 1 gets a sequence of n ids per instance. Instances are batched by
set_batch_size (the data feed's default 32), the last batch holding the rest. refimpl reads
and runs on one thread in file order; Paddle's C++ trainer threads (set_thread) share the
files. The fleet / parameter-server and BoxPS parts (global shuffles across trainers,
PV merging) have no counterpart here beyond what one process does."""
import random
import subprocess

import numpy as np

from ..framework.dtypes import convert_dtype
from .lod_tensor import create_lod_tensor
from .monitor import TOTAL_FEASIGN_NUM_IN_MEM, stat_add

__all__ = ["DatasetFactory", "InMemoryDataset", "QueueDataset", "FileInstantDataset",
           "BoxPSDataset"]

# a slot's value type in the data feed description, by variable dtype, and its array dtype
_SLOT_TYPES = {"float32": "float", "int64": "uint64"}
_SLOT_ARRAYS = {"float": np.float32, "uint64": np.int64}
_DEFAULT_BATCH_SIZE = 32    # DataFeedDesc.batch_size's default in Paddle's data_feed.proto


class DatasetBase:
    """What every dataset has: the data feed description (desc()), the file list, the
    threads asked for, and reading the files into batches."""
    _feed_name = "MultiSlotDataFeed"

    def __init__(self):
        # the DataFeedDesc fields set so far (desc() prints only those, as protobuf does)
        self._fields = {"name": self._feed_name, "pipe_command": "cat"}
        self._slots = []          # (variable, slot description) per set_use_var variable
        self.thread_num = 1
        self.filelist = []
        self.fea_eval = False

    def set_pipe_command(self, pipe_command):
        """The shell command each file is piped through (stdin: the file)."""
        self._fields["pipe_command"] = pipe_command

    def set_rank_offset(self, rank_offset):
        """The rank-offset variable's name (Paddle's PV instances; kept in desc())."""
        self._fields["rank_offset"] = rank_offset

    def set_fea_eval(self, record_candidate_size, fea_eval=True):
        """Slot-importance evaluation mode: InMemoryDataset.slots_shuffle draws the
        replacement values from up to record_candidate_size instances."""
        self.fea_eval = fea_eval
        self.record_candidate_size = record_candidate_size

    def set_batch_size(self, batch_size):
        self._fields["batch_size"] = int(batch_size)

    def set_pv_batch_size(self, pv_batch_size):
        self._fields["pv_batch_size"] = int(pv_batch_size)

    def set_thread(self, thread_num):
        self.thread_num = thread_num

    def set_filelist(self, filelist):
        self.filelist = filelist

    def set_hdfs_config(self, fs_name, fs_ugi):
        """The HDFS file system a filelist on HDFS is read from; recorded (refimpl reads
        local files)."""
        self.hdfs_config = (fs_name, fs_ugi)

    def set_download_cmd(self, download_cmd):
        """The command Paddle downloads remote files with; recorded (refimpl reads local
        files)."""
        self.download_cmd = download_cmd

    def set_use_var(self, var_list):
        """The variables each instance feeds, in the order its slots appear in a line."""
        for var in var_list:
            dtype = convert_dtype(var.dtype)
            if dtype not in _SLOT_TYPES:
                raise ValueError("Currently, fluid.dataset only supports dtype=float32 and "
                                 "dtype=int64; variable %r is %s" % (var.name, dtype))
            slot = {"name": var.name, "type": _SLOT_TYPES[dtype],
                    "is_dense": var.lod_level == 0, "is_used": True,
                    "shape": list(var.shape) if var.lod_level == 0 else []}
            self._slots.append((var, slot))

    def desc(self):
        """The data feed description in protobuf text format (Paddle's DataFeedDesc)."""
        lines = []
        for field in ("name", "batch_size"):
            if field in self._fields:
                lines.append(_text_field(field, self._fields[field]))
        if self._slots:
            lines.append("multi_slot_desc {")
            for _, slot in self._slots:
                lines += ["  slots {", "    " + _text_field("name", slot["name"]),
                          "    " + _text_field("type", slot["type"])]
                lines += ["    is_dense: true"] if slot["is_dense"] else []
                lines += ["    is_used: true"]
                lines += ["    shape: %d" % d for d in slot["shape"]]
                lines.append("  }")
            lines.append("}")
        for field in ("pipe_command", "rank_offset", "pv_batch_size"):
            if field in self._fields:
                lines.append(_text_field(field, self._fields[field]))
        return "\n".join(lines) + "\n"

    def _instances(self, filelist=None):
        """Every instance of the files (default: the file list), read through the pipe
        command, in file order."""
        for path in self.filelist if filelist is None else filelist:
            for number, line in enumerate(_piped_lines(self._fields["pipe_command"], path), 1):
                if line.strip():
                    yield self._parse(line, path, number)

    def _parse(self, line, path, number):
        """One instance: the values of each slot, as a list of strings per slot."""
        tokens, pos, values = line.split(), 0, []
        for _, slot in self._slots:
            where = "fluid.dataset: %s line %d, slot %r" % (path, number, slot["name"])
            if pos >= len(tokens):
                raise ValueError("%s: the line ends before this slot (a line holds, per "
                                 "slot, a count then that many values)" % where)
            count = int(tokens[pos])
            if count <= 0:
                raise ValueError("%s: the number of ids can not be zero, you need padding "
                                 "it in the data generator" % where)
            if pos + 1 + count > len(tokens):
                raise ValueError("%s: the count is %d but %d values follow"
                                 % (where, count, len(tokens) - pos - 1))
            values.append(tokens[pos + 1:pos + 1 + count])
            pos += 1 + count
        if pos != len(tokens):
            raise ValueError("fluid.dataset: %s line %d has %d values after its %d slots"
                             % (path, number, len(tokens) - pos, len(self._slots)))
        return values

    def _batches(self, instances):
        """Feed dicts of batch_size instances each (the last one holding the rest)."""
        return (feed for _, feed in self._counted_batches(instances))

    def _counted_batches(self, instances):
        """(instances in it, feed dict) per batch of _batches."""
        size = self._batch_size()
        batch = []
        for instance in instances:
            batch.append(instance)
            if len(batch) == size:
                yield size, self._feed(batch)
                batch = []
        if batch:
            yield len(batch), self._feed(batch)

    def _batch_size(self):
        return self._fields.get("batch_size", _DEFAULT_BATCH_SIZE)

    def _reader_batches(self, readers):
        """The (count, feed) batches of each of `readers` data feeds, as Paddle's readers
        make them for DataLoader.from_dataset: each reads its own files (file k goes to
        reader k % readers; Paddle's readers take the next unread file as they go) and
        batches them, its last batch holding its rest."""
        return [self._counted_batches(self._instances(self.filelist[i::readers]))
                for i in range(readers)]

    def _feed(self, batch):
        feed = {}
        for i, (var, slot) in enumerate(self._slots):
            rows = [np.asarray(inst[i], dtype=_SLOT_ARRAYS[slot["type"]]) for inst in batch]
            if slot["is_dense"]:
                row_shape = slot["shape"][1:]
                size = int(np.prod(row_shape)) if row_shape else 1
                bad = [len(r) for r in rows if len(r) != size]
                if bad:
                    raise ValueError("fluid.dataset: dense slot %r of shape %s takes %d values "
                                     "per instance, got %d" % (var.name, slot["shape"], size,
                                                               bad[0]))
                feed[var.name] = np.stack(rows).reshape([len(rows)] + (row_shape or [1]))
            else:
                feed[var.name] = create_lod_tensor(np.concatenate(rows).reshape(-1, 1),
                                                   [[len(r) for r in rows]])
        return feed

    def _feeds(self):
        """The feed dicts Executor.train_from_dataset runs the program on."""
        return self._batches(self._instances())


def _text_field(name, value):
    return '%s: "%s"' % (name, value) if isinstance(value, str) else "%s: %s" % (name, value)


def _piped_lines(command, path):
    with open(path, "rb") as f:
        done = subprocess.run(command, shell=True, stdin=f, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise RuntimeError("fluid.dataset: pipe command %r on %s exited with %d: %s"
                           % (command, path, done.returncode,
                              done.stderr.decode(errors="replace").strip()))
    return done.stdout.decode().splitlines()


class InMemoryDataset(DatasetBase):
    """A dataset loaded into memory first (load_into_memory), which can be shuffled."""
    _feed_name = "MultiSlotInMemoryDataFeed"

    def __init__(self):
        super().__init__()
        self._memory = None
        self._memory_feasigns = 0
        self._original = None     # the instances as loaded, once slots_shuffle ran
        self.queue_num = None
        self.parse_ins_id = False
        self.parse_content = False
        self.parse_logkey = False
        self.merge_by_sid = True
        self.enable_pv_merge = False
        self.merge_by_lineid = False
        self.fleet_send_batch_size = None
        self.fleet_send_sleep_seconds = None

    # the fields of Paddle's instance parsing and fleet shuffle, recorded
    def set_queue_num(self, queue_num):
        self.queue_num = queue_num

    def set_parse_ins_id(self, parse_ins_id):
        self.parse_ins_id = parse_ins_id

    def set_parse_content(self, parse_content):
        self.parse_content = parse_content

    def set_parse_logkey(self, parse_logkey):
        self.parse_logkey = parse_logkey

    def set_merge_by_sid(self, merge_by_sid):
        self.merge_by_sid = merge_by_sid

    def set_enable_pv_merge(self, enable_pv_merge):
        self.enable_pv_merge = enable_pv_merge

    def set_merge_by_lineid(self, merge_size=2):
        self.merge_by_lineid = True
        self.parse_ins_id = True

    def set_fleet_send_batch_size(self, fleet_send_batch_size=1024):
        self.fleet_send_batch_size = fleet_send_batch_size

    def set_fleet_send_sleep_seconds(self, fleet_send_sleep_seconds=0):
        self.fleet_send_sleep_seconds = fleet_send_sleep_seconds

    def set_feed_type(self, data_feed_type):
        self._fields["name"] = data_feed_type

    def load_into_memory(self):
        self.release_memory()
        self._memory = list(self._instances())
        self._memory_feasigns = self._feasign_count(self._memory)
        stat_add(TOTAL_FEASIGN_NUM_IN_MEM, self._memory_feasigns)

    def _feasign_count(self, instances):
        """The integer (uint64-slot) ids of the instances: what Paddle's monitor counts."""
        ids = [i for i, (_, slot) in enumerate(self._slots) if slot["type"] == "uint64"]
        return sum(len(inst[i]) for inst in instances for i in ids)

    def slots_shuffle(self, slots):
        """Slot-importance evaluation (Paddle's SlotsShuffle; nothing unless set_fea_eval
        turned it on): every instance's integer slots named in `slots` take the values of an
        instance drawn at random from a reservoir of the last record_candidate_size seen
        (itself included). Each call starts again from the instances as loaded."""
        if not self.fea_eval:
            return
        if self._original is None:
            self._original = list(self._loaded("slots_shuffle"))
        names = set(slots)
        chosen = {i for i, (var, slot) in enumerate(self._slots)
                  if var.name in names and slot["type"] == "uint64"}
        capacity = max(int(self.record_candidate_size), 1)
        candidates, shuffled = [], []
        for seen, instance in enumerate(self._original, 1):
            if len(candidates) < capacity:
                candidates.append(instance)
            else:
                index = random.randrange(seen)
                if index < capacity:
                    candidates[index] = instance
            donor = random.choice(candidates)
            shuffled.append([donor[i] if i in chosen else values
                             for i, values in enumerate(instance)])
        self._memory = shuffled

    def preload_into_memory(self, thread_num=None):
        """Paddle loads in the background until wait_preload_done; refimpl loads now."""
        self.load_into_memory()

    def wait_preload_done(self):
        self._loaded("wait_preload_done")

    def local_shuffle(self):
        random.shuffle(self._loaded("local_shuffle"))

    def global_shuffle(self, fleet=None, thread_num=12):
        """Shuffle across the trainers; with one trainer (refimpl's), across this one's."""
        if fleet is not None and fleet.worker_num() > 1:
            raise NotImplementedError("fluid.dataset.global_shuffle across %d trainers sends "
                                      "instances between them, which refimpl does not do"
                                      % fleet.worker_num())
        self.local_shuffle()

    def release_memory(self):
        stat_add(TOTAL_FEASIGN_NUM_IN_MEM, -self._memory_feasigns)
        self._memory, self._original, self._memory_feasigns = None, None, 0

    def get_memory_data_size(self, fleet=None):
        return len(self._loaded("get_memory_data_size"))

    def get_shuffle_data_size(self, fleet=None):
        return len(self._loaded("get_shuffle_data_size"))

    def _loaded(self, what):
        if self._memory is None:
            raise RuntimeError("fluid.dataset.%s.%s: nothing is in memory; call "
                               "load_into_memory() first" % (type(self).__name__, what))
        return self._memory

    def _feeds(self):
        return self._batches(self._loaded("the run (train_from_dataset)"))

    def _reader_batches(self, readers):
        """Paddle's in-memory readers share one channel of the loaded instances: between
        them they take its batches in order (one iterator for all)."""
        shared = self._counted_batches(self._loaded("DataLoader.from_dataset"))
        return [shared] * readers


class QueueDataset(DatasetBase):
    """A dataset streamed from its files at each run."""

    def local_shuffle(self):
        raise NotImplementedError("QueueDataset does not support local shuffle, please use "
                                  "InMemoryDataset for local_shuffle")

    def global_shuffle(self, fleet=None):
        raise NotImplementedError("QueueDataset does not support global shuffle, please use "
                                  "InMemoryDataset for global_shuffle")


class FileInstantDataset(QueueDataset):
    """A QueueDataset that Paddle reads through its file-instant data feed."""
    _feed_name = "MultiSlotFileInstantDataFeed"


class BoxPSDataset(InMemoryDataset):
    """The in-memory dataset of Paddle's BoxPS parameter server. Without BoxPS (Paddle's
    CPU wheels, refimpl) its pass boundaries do nothing."""
    _feed_name = "PaddleBoxDataFeed"

    def set_date(self, date):
        self.date = date

    def begin_pass(self):
        pass

    def end_pass(self, need_save_delta):
        pass


class DatasetFactory:
    """create_dataset(name) -> a new dataset of the named class."""

    def create_dataset(self, datafeed_class="QueueDataset"):
        classes = {c.__name__: c for c in (InMemoryDataset, QueueDataset, FileInstantDataset,
                                           BoxPSDataset)}
        if datafeed_class not in classes:
            raise ValueError("datafeed class %s does not exist; fluid.dataset has %s"
                             % (datafeed_class, sorted(classes)))
        return classes[datafeed_class]()
