"""paddle.fluid.dataloader.dataloader_iter: Paddle 2.0's name of the DataLoader worker
loop, refimpl's own (refimpl/io/worker.py worker_loop: the start and loop every
DataLoader worker runs, over queues)."""
from ...io.worker import worker_loop

__all__ = []


def _worker_loop(dataset, dataset_kind, indices_queue, out_queue, done_event,
                 auto_collate_batch, collate_fn, init_fn, worker_id, num_workers,
                 use_shared_memory):
    """Paddle 2.0's signature: the kind of dataset is read from the dataset itself, and
    batches go on out_queue as they are (pickled by the queue: shared memory is the
    DataLoader's own transport, use_shared_memory changes nothing here)."""
    worker_loop(dataset, indices_queue, out_queue, done_event, auto_collate_batch,
                collate_fn, init_fn, worker_id, num_workers)
