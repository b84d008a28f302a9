"""fluid.contrib.reader (Paddle 1.8 and 2.0): distributed_batch_reader."""
import os

__all__ = ["distributed_batch_reader"]


def distributed_batch_reader(batch_reader):
    """This trainer's share of `batch_reader`'s batches: of each run of PADDLE_TRAINERS_NUM
    consecutive batches, the one at position PADDLE_TRAINER_ID; a last run shorter than
    the trainer count is dropped. With one trainer, every batch."""
    trainers = int(os.getenv("PADDLE_TRAINERS_NUM", "1"))
    trainer_id = int(os.getenv("PADDLE_TRAINER_ID", "0"))
    if not 0 <= trainer_id < trainers:
        raise AssertionError("distributed_batch_reader: PADDLE_TRAINER_ID %d must be in "
                             "[0, PADDLE_TRAINERS_NUM=%d)" % (trainer_id, trainers))

    def reader():
        if trainers > 1:
            print("start data reader (trainers_num: {}, trainer_id: {})".format(
                trainers, trainer_id))
        run = []
        for batch in batch_reader():
            run.append(batch)
            if len(run) == trainers:
                yield run[trainer_id]
                run = []
    return reader
