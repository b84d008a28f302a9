"""fluid.contrib.decoder (1.8): InitState, StateCell, TrainingDecoder, BeamSearchDecoder
(beam_search_decoder.py)."""
from . import beam_search_decoder
from .beam_search_decoder import BeamSearchDecoder, InitState, StateCell, TrainingDecoder

__all__ = ["InitState", "StateCell", "TrainingDecoder", "BeamSearchDecoder"]
