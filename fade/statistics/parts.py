"""The statistics' contexts and parts: what a model may be made of.

A context has a fixed index (its two mixer inputs, its state map, its slot
in a stream's state), whichever model uses it; a part is one bit of a
model's `parts` (fade.statistics.models), naming contexts to add or a
change in how the mixer or the APMs work. A new kind of data brings its
contexts here (an index each, appended, and the part that brings them),
their hashes in a kernel module of its own (fade.statistics.contexts and
fade.statistics.records are the first two), and a model that names the
part. Indices and bits only ever grow: older archives must decode.
This module imports nothing, so that every other one can import it.
"""

from __future__ import annotations

# Contexts, each at its own index. First the shared ones: hashed byte contexts
# of these orders, then the current word.
ORDERS = (1, 2, 3, 4, 6)
SHARED = len(ORDERS) + 1
KEYED = 5  # stream-keyed contexts (orders 1-4 and the word), lockstep only
# Model 1's: the previous word with the current one, the word before it with
# the current one, and bytes 2-3 back (skipping the last: binaries).
BIGRAM, SKIPGRAM, SPARSE = range(SHARED + KEYED, SHARED + KEYED + 3)
# Model 2's: orders 5 and 8, the last three words, two column contexts (the
# byte above in the previous line, with the last byte and with the column:
# tables, aligned text) and two indirect ones (the last byte, and the last
# two, with the two bytes that followed them the last times).
# Model 3's: the byte the match model expects (with its length and the last
# byte), two sparse ones (the last byte with the third, bytes 3-4 back), and
# two record ones (the byte one record length back with the last byte, and
# with the byte two records back; the length is the distance at which byte
# values keep repeating, found as paq8's record model does).
(ORDER5, ORDER8, TRIGRAM, ABOVE, COLUMN, INDIRECT1, INDIRECT2, EXPECTED, SPARSE2, SPARSE3,
 RECORD1, RECORD2) = range(SHARED + KEYED + 3, SHARED + KEYED + 15)
# F_STRIDE's: two stride contexts (where the byte falls in 8, with the
# bytes 8 and 16 back; with the byte 16 back and the last byte): arrays of
# 8-byte numbers, and machine code.
STRIDE1, STRIDE2 = range(SHARED + KEYED + 15, SHARED + KEYED + 17)
# F_TABLE's (delimited tables): the field's index with its place in the
# field, the byte above it (in the same field of the row above) and the last
# byte; the field's index with its bytes so far; the field above (its bytes)
# with the place and the last byte.
FIELD1, FIELD2, FIELD3 = range(SHARED + KEYED + 17, SHARED + KEYED + 20)
# The bytes that may delimit a table's fields: tab, comma, semicolon, vertical
# bar (fade.statistics.tables finds which as the bytes come; fade.kinds.Screen
# finds whether text is a table).
DELIMITERS = (9, 44, 59, 124)
# F_DNA's (nucleotides, fade.statistics.dna): the place in the line
# with the line before's width (line breaks at a fixed width), and of the
# shared contexts only orders 1 and 2 (the bytes say little on bases) ...
DNA_LINE = SHARED + KEYED + 20
DNA_SHARED = 2
# ... and one input each for these orders (in bases, with line breaks,
# headers and other bytes skipped): counts of the four bases after each
# context, learned from both strands (the inverted repeats), as the GeCo
# compressors do.
DNA_ORDERS = (2, 3, 4, 6, 8, 11, 12, 16, 20)
DNA_DIRECT = 11  # orders up to this are tables of 4^order entries; higher ones hashed
# F_X86's (x86 machine code as instructions, fade.statistics.x86):
# where the byte falls in its instruction (prefix, opcode, ModRM, SIB,
# displacement, immediate; how many bytes of it are left) with the opcode
# and the ModRM's mode; the instruction's bytes so far with the opcode
# before; and with the whole instruction before.
X86_PLACE, X86_SEQUENCE, X86_BEFORE, X86_WHOLE = range(SHARED + KEYED + 21, SHARED + KEYED + 25)
# F_RECORDS' (records of more than one length, fade.statistics.records):
# the place in the record (the column) with the byte above and the last byte;
# the column with the bytes one and two records above; the bytes one and two
# records of the second length above, with the last byte.
RECORD3, RECORD4, RECORD5 = range(SHARED + KEYED + 25, SHARED + KEYED + 28)
# F_IMAGE's (images, fade.statistics.image): the pixel's neighbours
# in its plane (west, north, north-west, north-east and two further), the
# predictions made of them (gradients, the median predictor, the planes
# already coded in this pixel) and the neighbours' errors, each with the
# plane; of the shared contexts only orders 1 and 2.
IMAGE_CONTEXTS = 18
IMAGE = SHARED + KEYED + 28
IMAGE_SHARED = 2
# F_MARKUP's (markup, fade.statistics.markup), beside the field
# contexts: the text alone (its last bytes, the tags between skipped), of two
# orders; the value before in the same tag, at the same place.
MARKUP_TEXT1, MARKUP_TEXT2, MARKUP_LEFT = range(IMAGE + IMAGE_CONTEXTS, IMAGE + IMAGE_CONTEXTS + 3)
# F_WORDS' (text, fade.statistics.words): the current word with the
# line's first word; with the bytes between it and the word before (the
# gap); with the word before and that gap; the kinds of the last 8 bytes
# with the last byte; the brackets and quotes open with the current word;
# the current number with the one before; the current word with the word
# that followed the word before last time.
(WORD_LINE, WORD_GAP, WORD_PAIR, WORD_KINDS, WORD_OPEN, WORD_NUMBER,
 WORD_NEXT) = range(MARKUP_LEFT + 1, MARKUP_LEFT + 8)
# F_LENGTH's (markup, tables, log lines): the field's
# length so far against the field above's (shorter by how much, as long,
# longer by how much; a power of two each way), with its key or index and
# the last byte: where a text, a value or a token ends.
FIELD_LENGTH = WORD_NEXT + 1
# F_LINES' (text, fade.statistics.words): the line's length so far
# against the line above's (the same buckets), with the current word's length
# and the last byte: where a line of a book or a wrapped paragraph breaks.
LINE_LENGTH = FIELD_LENGTH + 1
# F_X86MORE's (x86 code at the default and max, fade.statistics.x86):
# the place in the instruction (as X86_PLACE's) with the two bytes seen last
# at that place; the step and REX.W with the byte seen last at that step; the
# last byte with the step and the place mod 16 (padding runs to a 16-byte
# boundary); the place with the three instructions before
# (opcodes and ModRMs); and a call's or jump's target's bytes so far against
# the place of the call (near targets share the place's high bytes).
X86_RECENT, X86_STEP, X86_LAST, X86_THREE, X86_TARGET = range(LINE_LENGTH + 1, LINE_LENGTH + 6)
# F_FIELD_ORDERS' (markup, fade.statistics.markup): in text, orders
# 0 and 3 keyed by the last value its tag gave (a language): each language's
# own letters and spelling, which the general orders mix with every other's;
# elsewhere, orders 2 and 3 keyed by the field's key.
MARKUP_LOW, MARKUP_HIGH = X86_TARGET + 1, X86_TARGET + 2
# F_FIELD_ORDER1's: order 1 keyed the same way (by the text's language, or the
# field's key).
MARKUP_ONE = MARKUP_HIGH + 1
# F_RECALL's (fade.statistics.words): the letter that last followed
# the current word's letters so far (in either case), with the last byte's
# case and the word's length: a word met before (a name in a tag, in the
# text above) is completed as it went then.
WORD_RECALL = MARKUP_ONE + 1
# F_SOURCE's (markup, fade.statistics.markup): in text, the current word with
# its place among the text's words, keyed by the text's language and by the
# last word of the text before that gave no language (in a tag without
# attributes: the untranslated text). A translation follows its original's
# last word, often its kind (a document, an image, an archive), as each
# language words that kind.
MARKUP_SOURCE = WORD_RECALL + 1
# F_DISTANT's (bytes of no other kind at max and the default,
# fade.statistics.records): the bytes at fixed distances back, alone and in
# pairs and threes, skipping the bytes between (each mask's bit k-1 names the
# byte k back), as paq8's sparse model has them: structures of 2, 4 and 8
# bytes, and lists of indices.
DISTANT_MASKS = (0b10, 0b100, 0b100000,  # bytes 2, 3 and 6 back
                 0b1001, 0b10001, 0b1010, 0b101000, 0b1100000,  # 1 and 4, 1 and 5, 2 and 4, ...
                 0b101000000, 0b110000000, 0b1010000000,  # 7 and 9, 8 and 9, 8 and 10
                 0b10101, 0b101010)  # 1, 3 and 5; 2, 4 and 6
DISTANT = MARKUP_SOURCE + 1
# F_TEXT's (text, fade.statistics.text): thirteen
# more of the text around the byte, as paq8's word model has them: the last
# letters and digits whatever lies between them, the bytes' groups (letter,
# capital, digit, any other byte itself), the column, the word's shape and
# case, the words before with the gap between, the bytes above.
TEXT = DISTANT + len(DISTANT_MASKS)
TEXT_CONTEXTS = 13
# F_TEXT2's (with F_TEXT): thirteen more, the line's bytes so far (orders 0
# and 1), its first byte and first word, the word in its KiB, the kinds of
# the last bytes, the column with the kinds, a space or the line above's
# length, the words before, the last letters and digits with the last bytes.
TEXT2 = TEXT + TEXT_CONTEXTS
# F_TEXT3's (with F_TEXT): twelve more, the bytes' groups with runs of
# letters or digits kept as one (a word's or number's length dropped: the
# text's punctuation over many words), and the brackets and quotes open
# with the word, the last bytes and their classes (fade.statistics.text).
TEXT3 = TEXT2 + TEXT_CONTEXTS
TEXT3_CONTEXTS = 12
# F_NUMBERS' (fade.statistics.records): seven contexts of numbers in rows
# (an ICC profile's tables between a JPEG's scans), each a prediction of the
# byte: a 16-bit big-endian number's low byte and high byte, and the byte,
# as the line through the two one and two records back, with how far that
# line missed a record back; the byte as the one a record back changed as
# the last byte changed, and the number the same way; the byte and the
# number as the plane through those a record, a row (2 to 64 records, the
# one that predicts best lately) and both back.
NUMBERS = TEXT3 + TEXT3_CONTEXTS
NUMBERS_CONTEXTS = 7
MAX_CONTEXTS = NUMBERS + NUMBERS_CONTEXTS

# A model's parts, as bits of parameters[P_PARTS]. Model 1's: the three
# contexts above; LAYERS: four weight sets (c0 and match, contexts found and
# bit position, the last byte, the byte before it) combined by a final mixer
# chosen by c0, instead of the average of the first two; APM3: a third APM,
# on a hash of order 2 and c0; RATE: the mixers learn faster at first.
# Model 2's: its contexts, and SETS: two more weight sets (order 2 hashed to
# 12 bits, the match state and bit position) under the final mixer; WORDSET:
# two more (the letters in the current word, the last byte's kind and the bit
# position; a copy of the first set learning at a quarter of the rate).
# With IMAGE, SETS' two sets are by the plane and the pixel's place instead:
# its column and row within an 8x8 block (a JPEG's blocks), and its strip of
# IMAGE_STRIP columns (fade.statistics.image).
# Model 3's: RUNS, two more inputs per context (the byte it saw last, if the
# bits so far agree, through a map of how many times in a row it came; the
# context's probability in the linear domain), and its contexts.
F_BIGRAM, F_SKIPGRAM, F_SPARSE, F_LAYERS, F_APM3, F_RATE = 1, 2, 4, 8, 16, 32
F_ORDERS, F_TRIGRAM, F_COLUMNS, F_SETS, F_INDIRECT, F_WORDSET = 64, 128, 256, 512, 1024, 2048
F_RUNS, F_EXPECTED, F_SPARSE2, F_RECORD = 4096, 8192, 16384, 32768
# SETS4: two more weight sets (by the kinds of the last four bytes, by order
# 3 hashed) under the final mixer (with WORDSET's); STRIDE: the stride contexts.
F_SETS4, F_STRIDE = 65536, 131072
# TABLE: the field contexts of delimited text (fade.statistics.tables).
F_TABLE = 262144
# DNA: the nucleotide contexts and counts (fade.statistics.dna).
F_DNA = 524288
# E8E9: x86 calls' and jumps' distances coded as addresses (fade.statistics.x86),
# in file order (the lockstep codes the bytes as they are, for the network).
F_E8E9 = 1048576
# X86: the instruction contexts and weight set (fade.statistics.x86).
F_X86 = 2097152
# RECORDS: the column contexts of the record length, and a second length's.
F_RECORDS = 4194304
# AUDIO: a WAV file's 16-bit samples coded as a predictor's residuals
# (fade.statistics.audio), in file order.
F_AUDIO = 8388608
# IMAGE: the pixel contexts, weight set and APM contexts of an image whose
# layout a header gives (fade.statistics.image).
F_IMAGE = 16777216
# PIXELS: an image without a header (raw pixels): the layout the encoder
# measured, as a PNM header it codes before the bytes and the decoder drops.
F_PIXELS = 33554432
# MARKUP (with TABLE): the field contexts keyed by markup's elements and
# attributes instead of a table's columns (fade.statistics.markup).
F_MARKUP = 67108864
# LOG (with TABLE): log lines' fields, the delimiter a space from the end of
# the first line (fade.statistics.tables).
F_LOG = 134217728
# STATES: each context's bit history a nonstationary state of its counts
# (fade.statistics.histories) in place of its last seven bits.
F_STATES = 268435456
# WORDS: the word contexts (fade.statistics.words).
F_WORDS = 536870912
# SSE: three more APMs beside APM3 (by the byte the match model expects with
# its length, by order 3 hashed, by the last byte with where the last 16
# bits were mispredicted), averaged with the first three's average.
F_SSE = 1 << 30
# GREEN (with IMAGE): a colour image's pixels coded as green, red less green
# and blue less green (fade.statistics.colour), in file order.
F_GREEN = 1 << 31
# OLS64 (with AUDIO): the least squares predictor of order 64 instead of 48.
F_OLS64 = 1 << 32
# LENGTH (with TABLE): the context of a field's length against the field above's.
F_LENGTH = 1 << 33
# LINES: the context of a line's length against the line above's.
F_LINES = 1 << 34
# X86MORE (with X86): five more instruction contexts (X86_RECENT to X86_TARGET).
F_X86MORE = 1 << 35
# FIELD_ORDERS (with MARKUP): two low orders keyed by the field or its language.
F_FIELD_ORDERS = 1 << 36
# FIELD_ORDER1 (with FIELD_ORDERS): order 1 keyed the same way (MARKUP_ONE).
F_FIELD_ORDER1 = 1 << 37
# RECALL (with WORDS): the letter that last followed the word so far (WORD_RECALL).
F_RECALL = 1 << 38
# SOURCE (with MARKUP): the context of a translation's words by its original's
# last word (MARKUP_SOURCE).
F_SOURCE = 1 << 39
# LAZY: a weight set learns only where its error is at least LAZY_ERROR
# (fade.statistics.kernels.learn), as paq8px's mixer skips its tiny errors.
F_LAZY = 1 << 40
# BLOCK (with IMAGE): prediction 25 by least squares per plane and place in
# an 8x8 block (where a JPEG's blocks were) over a wider neighbourhood, in
# place of the long-memory one; context 11 that prediction with how busy;
# and a colour pixel's first plane predicted as gray's (fade.statistics.image).
F_BLOCK = 1 << 41
# SWAP (with GREEN): the two differences in the other order, the pixel's last
# byte's first (blue's in RGB, red's in BMP's BGR; fade.statistics.colour).
F_SWAP = 1 << 42
# CHROMA (with GREEN): in a pixel's two differences, image contexts 16 and 17
# (and 10 in the first) by the differences at the pixel and its neighbours
# instead: a JPEG's colours are smooth, and its two differences move together
# (fade.statistics.chroma).
F_CHROMA = 1 << 43
# FINAL2 (with LAYERS): a second final mixer over the same weight sets' outputs,
# its weights chosen by the match's length bucket, the kinds of the last two
# bytes, the word's length so far and the bit's position (FINAL2_ROWS rows;
# contexts.final2_row), its output and the first's averaged.
F_FINAL2 = 1 << 44
# DISTANT: the contexts of the bytes at fixed distances back (DISTANT_MASKS).
F_DISTANT = 1 << 45
# QUIET: each context's inputs (its node's, its state map's, its run's and its
# linear probability) at half their scale, and the first layer's weight sets
# learning at 1.5x the rate: the bias, order 1 and the match learn relatively
# faster than the many contexts (docs/history/statistics-0.11.md, "Model 131").
F_QUIET = 1 << 46
# RUNKEYS (with RUNS): each context's run map by the bit's place and whether
# the context has seen another byte than its run's (fade.statistics.runs).
F_RUNKEYS = 1 << 47
# TEXT (with WORDS): thirteen text contexts (TEXT on); TEXT2 (with TEXT):
# thirteen more (TEXT2 on).
F_TEXT, F_TEXT2 = 1 << 48, 1 << 49
# TEXT3 (with TEXT): twelve more (TEXT3 on).
F_TEXT3 = 1 << 50
# SETS5 (with SETS4 and TEXT3): two more weight sets under the final mixer, by
# the last three groups of TEXT3's (runs as one) with c0, hashed, and by the
# last three bytes' classes with the bit's position (fade.statistics.text).
F_SETS5 = 1 << 51
# SURE (with STATES): one more input per context, its node's probability where
# its bit history has seen one bit value only (0 elsewhere), as paq8's context
# maps add an input for a deterministic state.
F_SURE = 1 << 52
# JPEG: a JPEG's entropy-coded data predicted from the coefficient each bit
# belongs to, its block's and its neighbours' (fade.statistics.jpeg), with
# weight sets and the second APM's rows by the coefficient and the code's
# bits so far; orders 1 and 2 alone of the shared contexts.
F_JPEG = 1 << 53
# JPEG2 (with JPEG): eight more contexts of the coefficient (the default's and
# max's: fade.statistics.coefficients).
F_JPEG2 = 1 << 54
# NUMBERS (with RECORD): the contexts of numbers in rows (NUMBERS on); in a
# JPEG's scan they keep the hashes of the byte before it.
F_NUMBERS = 1 << 55
# SEEN: the second weight set chosen by how many contexts have seen the bit's
# node (a bit history there), or by the match's length where one predicts,
# and by the last byte's top three bits (lpaq1's choice), instead of by the
# contexts found and the bit's position.
F_SEEN = 1 << 56
# ORDER0: where no match predicts, the match's input is an order-0
# probability by c0 instead of nothing.
F_ORDER0 = 1 << 57
# What a part reads of another's, so that a model with it has the others too:
# F_SURE F_STATES' bit-history states (older nodes keep seven bits there
# instead), F_RUNKEYS F_RUNS' entries, F_TEXT F_WORDS' words, F_RECALL keeps
# its table after F_WORDS' in the followers' array (sized with F_WORDS; a
# model with it alone wrote past that array's end), F_TEXT2 and F_TEXT3 run
# inside F_TEXT, F_SETS5 reads F_TEXT3's groups after F_SETS4's sets,
# F_NUMBERS F_RECORD's record length.
NEEDS = {F_JPEG2: F_JPEG, F_SURE: F_STATES, F_RUNKEYS: F_RUNS, F_TEXT: F_WORDS, F_RECALL: F_WORDS,
         F_TEXT2: F_TEXT, F_TEXT3: F_TEXT, F_SETS5: F_SETS4 | F_TEXT3, F_NUMBERS: F_RECORD}


def without(parts: int, part: int) -> int:
    """`parts` less `part` and the parts that need it (NEEDS), at any remove."""
    parts &= ~part
    for other, needed in NEEDS.items():
        if parts & other and parts & needed != needed:
            parts = without(parts, other)
    return parts


# The parts' names, for listings and docs (docs/statistics.md, "The models").
PART_NAMES = {F_BIGRAM: "F_BIGRAM", F_SKIPGRAM: "F_SKIPGRAM", F_SPARSE: "F_SPARSE",
              F_LAYERS: "F_LAYERS", F_APM3: "F_APM3", F_RATE: "F_RATE", F_ORDERS: "F_ORDERS",
              F_TRIGRAM: "F_TRIGRAM", F_COLUMNS: "F_COLUMNS", F_SETS: "F_SETS",
              F_INDIRECT: "F_INDIRECT", F_WORDSET: "F_WORDSET", F_RUNS: "F_RUNS",
              F_EXPECTED: "F_EXPECTED", F_SPARSE2: "F_SPARSE2", F_RECORD: "F_RECORD",
              F_SETS4: "F_SETS4", F_STRIDE: "F_STRIDE", F_TABLE: "F_TABLE",
              F_DNA: "F_DNA", F_E8E9: "F_E8E9", F_X86: "F_X86",
              F_RECORDS: "F_RECORDS", F_AUDIO: "F_AUDIO", F_IMAGE: "F_IMAGE",
              F_PIXELS: "F_PIXELS", F_MARKUP: "F_MARKUP", F_LOG: "F_LOG",
              F_STATES: "F_STATES", F_WORDS: "F_WORDS",
              F_SSE: "F_SSE", F_GREEN: "F_GREEN", F_OLS64: "F_OLS64",
              F_LENGTH: "F_LENGTH", F_LINES: "F_LINES",
              F_X86MORE: "F_X86MORE", F_FIELD_ORDERS: "F_FIELD_ORDERS",
              F_FIELD_ORDER1: "F_FIELD_ORDER1", F_RECALL: "F_RECALL",
              F_SOURCE: "F_SOURCE", F_LAZY: "F_LAZY",
              F_BLOCK: "F_BLOCK", F_SWAP: "F_SWAP", F_CHROMA: "F_CHROMA",
              F_FINAL2: "F_FINAL2", F_DISTANT: "F_DISTANT", F_QUIET: "F_QUIET",
              F_RUNKEYS: "F_RUNKEYS", F_TEXT: "F_TEXT", F_TEXT2: "F_TEXT2",
              F_TEXT3: "F_TEXT3", F_SETS5: "F_SETS5", F_SURE: "F_SURE", F_JPEG: "F_JPEG",
              F_JPEG2: "F_JPEG2", F_NUMBERS: "F_NUMBERS", F_SEEN: "F_SEEN", F_ORDER0: "F_ORDER0"}

# The optional contexts in input order, each with the part that brings it:
# after the shared ones and before the keyed ones.
OPTIONAL_CONTEXTS = ((BIGRAM, F_BIGRAM), (SKIPGRAM, F_SKIPGRAM), (SPARSE, F_SPARSE),
                     (ORDER5, F_ORDERS), (ORDER8, F_ORDERS), (TRIGRAM, F_TRIGRAM),
                     (ABOVE, F_COLUMNS), (COLUMN, F_COLUMNS),
                     (INDIRECT1, F_INDIRECT), (INDIRECT2, F_INDIRECT),
                     (EXPECTED, F_EXPECTED), (SPARSE2, F_SPARSE2), (SPARSE3, F_SPARSE2),
                     (RECORD1, F_RECORD), (RECORD2, F_RECORD),
                     (STRIDE1, F_STRIDE), (STRIDE2, F_STRIDE),
                     (FIELD1, F_TABLE), (FIELD2, F_TABLE), (FIELD3, F_TABLE),
                     (DNA_LINE, F_DNA),
                     (X86_PLACE, F_X86), (X86_SEQUENCE, F_X86), (X86_BEFORE, F_X86),
                     (X86_WHOLE, F_X86), (RECORD3, F_RECORDS), (RECORD4, F_RECORDS),
                     (RECORD5, F_RECORDS),
                     *((IMAGE + k, F_IMAGE) for k in range(IMAGE_CONTEXTS)),
                     (MARKUP_TEXT1, F_MARKUP), (MARKUP_TEXT2, F_MARKUP), (MARKUP_LEFT, F_MARKUP),
                     *((WORD_LINE + k, F_WORDS) for k in range(WORD_NEXT + 1 - WORD_LINE)),
                     (FIELD_LENGTH, F_LENGTH), (LINE_LENGTH, F_LINES),
                     *((X86_RECENT + k, F_X86MORE) for k in range(X86_TARGET + 1 - X86_RECENT)),
                     (MARKUP_LOW, F_FIELD_ORDERS), (MARKUP_HIGH, F_FIELD_ORDERS),
                     (MARKUP_ONE, F_FIELD_ORDER1), (WORD_RECALL, F_RECALL),
                     (MARKUP_SOURCE, F_SOURCE),
                     *((DISTANT + k, F_DISTANT) for k in range(len(DISTANT_MASKS))),
                     *((TEXT + k, F_TEXT) for k in range(TEXT_CONTEXTS)),
                     *((TEXT2 + k, F_TEXT2) for k in range(TEXT_CONTEXTS)),
                     *((TEXT3 + k, F_TEXT3) for k in range(TEXT3_CONTEXTS)),
                     *((NUMBERS + k, F_NUMBERS) for k in range(NUMBERS_CONTEXTS)))


def active_contexts(parts: int, keyed: bool) -> tuple[list[int], list[int], int]:
    """The contexts a model with `parts` feeds the mixer, in input order
    (shared, but orders 1 and 2 alone with F_DNA or F_JPEG; the parts' own;
    then keyed ones if `keyed`); the places in that
    order of the contexts from model 2 on; and how many come before the keyed."""
    active = list(range(DNA_SHARED if parts & (F_DNA | F_JPEG) else
                        IMAGE_SHARED if parts & F_IMAGE else SHARED))
    late = []
    for index, part in OPTIONAL_CONTEXTS:
        if parts & part:
            active.append(index)
            if ORDER5 <= index < IMAGE or index >= MARKUP_TEXT1:
                # (an image's contexts predict from its first row)
                late.append(len(active) - 1)
    unkeyed = len(active)
    if keyed:
        active += list(range(SHARED, SHARED + KEYED))
    return active, late, unkeyed


def part_names(parts: int) -> list[str]:
    """The names of the parts in `parts`, lowest bit first."""
    return [name for bit, name in sorted(PART_NAMES.items()) if parts & bit]
