"""F_IMAGE's, F_BLOCK's and F_GREEN's state (fade.statistics.image)."""

from __future__ import annotations

from fade.statistics.layouts import first

# F_IMAGE's mixer inputs: one per prediction of the pixel byte, from a map by
# where the prediction lies against the values the byte's bits so far leave
# (fade.statistics.image.image_inputs).
IMAGE_PREDICTIONS = 26
INPUTS = IMAGE_PREDICTIONS  # an input per prediction
# Two linear predictors per plane, least squares over the pixels before
# with weights that decay by 2^-shift a byte: their inputs, and each one's
# sums and weights (a matrix, a vector, weights).
OLS_INPUTS = 16
OLS_SHIFTS = (6, 9)
OLS_SIZE = OLS_INPUTS * OLS_INPUTS + 2 * OLS_INPUTS
# F_BLOCK's predictor, in the long-memory one's place: per plane and place
# in an 8x8 block (64 a plane), least squares over the neighbours this many
# rows up and pixels left (right: negative) less W, and a constant.
BLOCK_OFFSETS = ((1, 0), (1, 1), (1, -1), (0, 2), (2, 0), (2, -1), (1, 2), (2, 1), (0, 3),
                 (3, 0), (2, 2), (1, -2), (2, -2), (3, -1), (3, 1), (1, 3), (0, 4), (4, 0),
                 (1, -3), (0, 5), (5, 0), (2, 3), (3, 2), (3, -2), (4, -1), (4, 1))
BLOCK_INPUTS = len(BLOCK_OFFSETS) + 1
BLOCK_SIZE = BLOCK_INPUTS * BLOCK_INPUTS + 2 * BLOCK_INPUTS
BLOCK_SHIFT = 11  # its sums decay by 2^-11 an update (each place's own bytes)
BLOCK_CELLS = 4 * 64

# Where the pixels start and end in the stream, the bytes a row takes (with
# any padding), a pixel, and a row's pixels; then, for the next byte, the
# prediction its APM and weight sets read and the weight set by the plane
# and the neighbourhood; its plane and the neighbourhood's shape; the
# predictions of the next byte (value | histogram << 12); the linear
# predictors' inputs for the next byte; (with F_SETS) its weight sets by its
# plane and place (the column and row in an 8x8 block; the strip of
# columns); F_BLOCK's inputs for the next byte.
S_IMAGE = first(__name__)
S_IMAGE_START, S_IMAGE_END, S_IMAGE_STRIDE = S_IMAGE, S_IMAGE + 1, S_IMAGE + 2
S_IMAGE_PIXEL, S_IMAGE_ROW = S_IMAGE + 3, S_IMAGE + 4
S_IMAGE_PREDICTED, S_IMAGE_SET, S_IMAGE_APM = S_IMAGE + 5, S_IMAGE + 6, S_IMAGE + 7
S_IMAGE_PLANE = S_IMAGE + 8
S_IMAGE_SHAPE = S_IMAGE + 9
S_IMAGE_PREDICTIONS = S_IMAGE + 10
S_OLS_INPUTS = S_IMAGE_PREDICTIONS + IMAGE_PREDICTIONS
S_IMAGE_PHASE = S_OLS_INPUTS + OLS_INPUTS
S_IMAGE_STRIP = S_IMAGE_PHASE + 1
S_BLOCK_INPUTS = S_IMAGE_STRIP + 1
FIELDS = S_BLOCK_INPUTS + BLOCK_INPUTS - S_IMAGE

# Weight sets by the plane (0-3), how busy the neighbourhood is (0-7) and
# the bit position, then (F_LAYERS) by the plane and the neighbourhood's
# shape (which of its neighbours are larger, and where they differ by more
# than 3).
IMAGE_BUSY_SETS = 4 * 8 * 8
SETS = IMAGE_BUSY_SETS + 4 * 512
# F_SETS with F_IMAGE, in the general sets by order 2 and by the match
# state: by the plane (0-3) and the pixel's column and row in an 8x8 block
# (a JPEG's blocks); by the plane and the pixel's strip of IMAGE_STRIP
# columns (the strips past IMAGE_STRIPS share sets again).
IMAGE_PHASE_SETS = 4 * 64
IMAGE_STRIP = 16
IMAGE_STRIPS = 128

# Per prediction and plane, histograms of its residuals by how well it did
# nearby (8 steps), in Tables.kind_map.
IMAGE_STEPS = 16
MAP_ENTRIES = IMAGE_PREDICTIONS * 4 * 2 * IMAGE_STEPS * 256
IMAGE_COUNT_LIMIT = 4095  # a histogram's counts halve when their total reaches this
# Each prediction's error at the last IMAGE_RING bytes (a ring: rows of more
# than a third of it see other rows' errors as their neighbours'), in
# Tables.kind_bytes.
IMAGE_RING = 1 << 17
IMAGE_RING_MASK = IMAGE_RING - 1
BYTE_ENTRIES = IMAGE_RING * IMAGE_PREDICTIONS


def state_words(block: bool) -> int:
    """Tables.kind_state: the linear predictors' sums and weights, per
    predictor and plane, then (`block`: F_BLOCK) its per plane and place."""
    return len(OLS_SHIFTS) * 4 * OLS_SIZE + (BLOCK_CELLS * BLOCK_SIZE if block else 0)
