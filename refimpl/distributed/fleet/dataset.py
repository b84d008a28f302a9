"""Paddle 2.0's paddle.distributed datasets (fleet.dataset): fluid.dataset's MultiSlot
datasets under 2.0's API -- one init(**settings) call (InMemoryDataset also
_init_distributed_settings and update_settings) and setters renamed with a leading
underscore; reading, batching and running are fluid.dataset's (specs/fluid_misc.md)."""
from ...fluid import dataset as fluid_dataset

__all__ = ["DatasetBase", "InMemoryDataset", "QueueDataset", "FileInstantDataset",
           "BoxPSDataset"]

# 2.0's init settings: name -> default
_BASE_SETTINGS = dict(batch_size=1, thread_num=1, use_var=[], pipe_command="cat",
                      input_type=0, fs_name="", fs_ugi="", download_cmd="cat")
# the distributed settings of InMemoryDataset (recorded, as fluid.dataset records them)
_DISTRIBUTED_SETTINGS = ("merge_size", "parse_ins_id", "parse_content",
                         "fleet_send_batch_size", "fleet_send_sleep_seconds", "fea_eval",
                         "candidate_size")


class _Api20:
    """The 2.0 names of fluid.dataset's setters."""

    def init(self, batch_size=1, thread_num=1, use_var=(), pipe_command="cat", input_type=0,
             fs_name="", fs_ugi="", download_cmd="cat"):
        """Every basic setting at once (2.0's defaults)."""
        self._set_batch_size(batch_size)
        self._set_thread(thread_num)
        self._set_use_var(list(use_var))
        self._set_pipe_command(pipe_command)
        self._set_input_type(input_type)
        self._set_hdfs_config(fs_name, fs_ugi)
        self._set_download_cmd(download_cmd)

    def _set_input_type(self, input_type):
        """0: a line is one instance; 1: Paddle's batch-per-line input (recorded)."""
        if input_type not in (0, 1):
            raise ValueError("%s: input_type must be 0 (one instance a line) or 1 (one batch a "
                             "line), got %r" % (type(self).__name__, input_type))
        self.input_type = input_type

    def _desc(self):
        return self.desc()

    _set_pipe_command = fluid_dataset.DatasetBase.set_pipe_command
    _set_batch_size = fluid_dataset.DatasetBase.set_batch_size
    _set_thread = fluid_dataset.DatasetBase.set_thread
    _set_use_var = fluid_dataset.DatasetBase.set_use_var
    _set_hdfs_config = fluid_dataset.DatasetBase.set_hdfs_config
    _set_download_cmd = fluid_dataset.DatasetBase.set_download_cmd
    _set_rank_offset = fluid_dataset.DatasetBase.set_rank_offset
    _set_pv_batch_size = fluid_dataset.DatasetBase.set_pv_batch_size
    _set_fea_eval = fluid_dataset.DatasetBase.set_fea_eval


class DatasetBase(_Api20, fluid_dataset.DatasetBase):
    pass


class QueueDataset(_Api20, fluid_dataset.QueueDataset):
    pass


class FileInstantDataset(_Api20, fluid_dataset.FileInstantDataset):
    pass


class InMemoryDataset(_Api20, fluid_dataset.InMemoryDataset):
    def init(self, **settings):
        """2.0's basic settings plus data_feed_type and queue_num."""
        self._check_settings("init", settings,
                             tuple(_BASE_SETTINGS) + ("data_feed_type", "queue_num"))
        super().init(**{k: settings.get(k, v) for k, v in _BASE_SETTINGS.items()})
        self._set_feed_type(settings.get("data_feed_type", "MultiSlotInMemoryDataFeed"))
        if settings.get("queue_num", -1) > 0:
            self._set_queue_num(settings["queue_num"])

    def _init_distributed_settings(self, **settings):
        """Instance parsing and the fleet shuffle's settings (2.0's keys and defaults)."""
        self._check_settings("_init_distributed_settings", settings, _DISTRIBUTED_SETTINGS)
        if settings.get("merge_size", -1) > 0:
            self._set_merge_by_lineid(settings["merge_size"])
        self._set_parse_ins_id(settings.get("parse_ins_id", False))
        self._set_parse_content(settings.get("parse_content", False))
        if settings.get("fleet_send_batch_size"):
            self._set_fleet_send_batch_size(settings["fleet_send_batch_size"])
        if settings.get("fleet_send_sleep_seconds"):
            self._set_fleet_send_sleep_seconds(settings["fleet_send_sleep_seconds"])
        if settings.get("fea_eval", False):
            self._set_fea_eval(settings.get("candidate_size", 10000), True)

    def update_settings(self, **settings):
        """Change the settings named (init's and _init_distributed_settings' keys)."""
        self._check_settings("update_settings", settings,
                             tuple(_BASE_SETTINGS) + _DISTRIBUTED_SETTINGS)
        setters = dict(pipe_command=self._set_pipe_command, batch_size=self._set_batch_size,
                       thread_num=self._set_thread, use_var=self._set_use_var,
                       input_type=self._set_input_type, download_cmd=self._set_download_cmd,
                       parse_ins_id=self._set_parse_ins_id,
                       parse_content=self._set_parse_content,
                       fleet_send_batch_size=self._set_fleet_send_batch_size,
                       fleet_send_sleep_seconds=self._set_fleet_send_sleep_seconds)
        for key, value in settings.items():
            if key in setters:
                setters[key](value)
            elif key == "fs_name" and "fs_ugi" in settings:
                self._set_hdfs_config(value, settings["fs_ugi"])
            elif key == "merge_size" and value > 0:
                self._set_merge_by_lineid(value)
            elif key == "fea_eval" and value:
                self._set_fea_eval(settings.get("candidate_size", 10000), True)

    def _check_settings(self, what, settings, known):
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise TypeError("%s.%s: unknown settings %s; known: %s"
                            % (type(self).__name__, what, unknown, list(known)))

    _set_queue_num = fluid_dataset.InMemoryDataset.set_queue_num
    _set_parse_ins_id = fluid_dataset.InMemoryDataset.set_parse_ins_id
    _set_parse_content = fluid_dataset.InMemoryDataset.set_parse_content
    _set_parse_logkey = fluid_dataset.InMemoryDataset.set_parse_logkey
    _set_merge_by_sid = fluid_dataset.InMemoryDataset.set_merge_by_sid
    _set_enable_pv_merge = fluid_dataset.InMemoryDataset.set_enable_pv_merge
    _set_merge_by_lineid = fluid_dataset.InMemoryDataset.set_merge_by_lineid
    _set_fleet_send_batch_size = fluid_dataset.InMemoryDataset.set_fleet_send_batch_size
    _set_fleet_send_sleep_seconds = fluid_dataset.InMemoryDataset.set_fleet_send_sleep_seconds
    _set_feed_type = fluid_dataset.InMemoryDataset.set_feed_type


class BoxPSDataset(InMemoryDataset, fluid_dataset.BoxPSDataset):
    _PV_SETTINGS = dict(rank_offset="", pv_batch_size=1, parse_logkey=False,
                        merge_by_sid=False, enable_pv_merge=False)

    def init(self, **settings):
        """InMemoryDataset's settings plus the PV ones (2.0's defaults, each set)."""
        super().init(**{k: v for k, v in settings.items() if k not in self._PV_SETTINGS})
        for key, default in self._PV_SETTINGS.items():
            getattr(self, "_set_" + key)(settings.get(key, default))
