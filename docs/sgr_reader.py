#!/usr/bin/env python3
"""Reads Sandglass replay files (.sgr) as docs/replay-format.md defines them.

A second reader, written from that page alone with Python's standard library, as an
example for tools. For each file it prints one JSON line: what the file holds (its
versions, seed, ruleset, how many events, commands, draws and checkpoints, and the
final hash it records), or why it is refused. It checks everything the page says a
reader can check without the rules, the draws against the seed's generator included.
It cannot check the hashes: only the rules can (see "What only the rules can check").

    python3 docs/sgr_reader.py FILE.sgr...

The exit status is 1 if any file is refused.
"""

import itertools
import json
import os
import stat
import struct
import sys

# "What this build reads". A rules version that adds commands is one more number here,
# and a row for each new command in COMMANDS.
LAYOUT_VERSION = 1
FORMAT_VERSION = 1
RULES_VERSIONS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)
MOST_BYTES = 256 << 20

MAGIC = b"\x89SGR\r\n\x1a\n"
PREAMBLE = 18  # magic, layout version, length
TRAILER = 16  # final hash, checksum

# Variant index: (name, field types, the rules version that brought it).
COMMANDS = {
    0: ("Move", ("direction",), 2),
    1: ("Rest", (), 2),
    2: ("PickUp", (), 2),
    3: ("Drop", ("slot",), 2),
    4: ("Eat", ("slot",), 2),
    5: ("Throw", ("slot", "direction"), 2),
    6: ("Open", ("direction",), 2),
    7: ("Close", ("direction",), 2),
    8: ("Descend", (), 2),
    9: ("Dash", (), 2),
    10: ("Quit", (), 2),
    11: ("Wear", ("slot",), 7),
    12: ("Use", ("slot",), 9),
    13: ("Grow", ("slot", "boon"), 9),
    14: ("TakeOff", ("garment",), 9),
    15: ("ThrowAt", ("slot", "offset", "offset"), 14),
}
# The values each field type may hold ("legal" in the document).
# An offset is a signed byte, read here as the byte: which cells are legal is the fold's
# to say (whether the camel sees the cell), as it is for a direction into a wall.
FIELD_VALUES = {
    "direction": range(8),
    "slot": range(26),
    "boon": range(10),
    "garment": range(3),
    "offset": range(256),
}
# The fields that are plain bytes; the others are an enum's variant index, a varint.
BYTE_FIELDS = ("slot", "offset")
# Boons 3 to 9 came with rules version 12: before it, every desert rose offers 0 to 2.
FIRST_BOONS, LATER_BOONS_SINCE = 3, 12

# The camel's most energy: a classic threshold above it would never let it act.
CAMEL_MOST_ENERGY = 200

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


class Refused(Exception):
    """Why a file is refused, and at which event when it is one event."""

    def __init__(self, what, event=None):
        super().__init__(what)
        self.event = event


def damaged(what, event=None):
    return Refused("the file is damaged: " + what, event)


class Bytes:
    """The checksummed body, read front to back. A number spelt longer than it need be is
    read for its value and noted in `over_long`: it is refused only once the whole body
    has been read (step 10 of "Reading, and what is refused")."""

    def __init__(self, data, at):
        self.data = data
        self.at = at
        self.over_long = False

    def left(self):
        return len(self.data) - self.at

    def take(self, n):
        if n > self.left():
            raise damaged("it ends in the middle of a field")
        self.at += n
        return self.data[self.at - n : self.at]

    def fixed(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]

    def leb128(self):
        value = 0
        for i in range(10):
            byte = self.take(1)[0]
            if i > 0 and byte == 0:
                self.over_long = True
            if i == 9 and byte > 1:
                break
            value |= (byte & 0x7F) << (7 * i)
            if byte < 0x80:
                return value
        raise damaged("a number in it is too long")

    def varint(self, bits):
        """A bincode varint of an integer type `bits` wide."""
        first = self.take(1)[0]
        if first < 251:
            return first
        width = {251: 16, 252: 32, 253: 64}.get(first)
        if width is None or width > bits:
            raise damaged("a number in its header or a command does not decode")
        value = self.fixed({16: "H", 32: "I", 64: "Q"}[width])
        if value < (251 if width == 16 else 1 << (width // 2)):
            self.over_long = True
        return value


def generator(seed, rules_version):
    """The draws of the seed, in order, by the generator of the rules version."""
    return chacha20(seed) if rules_version >= 15 else pcg32(seed)


def pcg32(seed):
    """PCG32 seeded as the document says: the draws, in order."""
    mul, inc = 6364136223846793005, 1442695040888963407
    state = ((seed + inc) * mul + inc) & M64
    while True:
        x = (((state >> 18) ^ state) >> 27) & M32
        rot = state >> 59
        yield ((x >> rot) | (x << (32 - rot))) & M32
        state = (state * mul + inc) & M64


def chacha20(seed):
    """ChaCha20 keyed as the document says: the keystream's words, in order."""
    key = struct.unpack("<8I", struct.pack("<Q", seed) + bytes(24))
    start = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574) + key
    columns = ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15))
    diagonals = ((0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14))
    counter = 0
    while True:
        s = start + (counter & M32, counter >> 32, 0, 0)
        x = list(s)
        for _ in range(10):
            for a, b, c, d in columns + diagonals:
                xa, xb, xc, xd = x[a], x[b], x[c], x[d]
                xa = (xa + xb) & M32
                xd ^= xa
                xd = ((xd << 16) | (xd >> 16)) & M32
                xc = (xc + xd) & M32
                xb ^= xc
                xb = ((xb << 12) | (xb >> 20)) & M32
                xa = (xa + xb) & M32
                xd ^= xa
                xd = ((xd << 8) | (xd >> 24)) & M32
                xc = (xc + xd) & M32
                xb ^= xc
                xb = ((xb << 7) | (xb >> 25)) & M32
                x[a], x[b], x[c], x[d] = xa, xb, xc, xd
        for i in range(16):
            yield (x[i] + s[i]) & M32
        counter += 1


# XXH3-64 with seed 0 and the default secret, for inputs over 16 bytes (a checksummed
# body is at least 26). Plain Python ints, masked to 64 bits where the result is used.
SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
)
P32_1, P32_2, P32_3 = 0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D
P64_1, P64_2, P64_3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
P64_4, P64_5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5


def u64_at(data, at):
    return struct.unpack_from("<Q", data, at)[0]


def avalanche(h):
    h &= M64
    h ^= h >> 37
    h = (h * 0x165667919E3779F9) & M64
    return h ^ (h >> 32)


def mul_fold(a, b):
    product = a * b
    return (product ^ (product >> 64)) & M64


def mix16(data, at, secret_at):
    return mul_fold(
        u64_at(data, at) ^ u64_at(SECRET, secret_at),
        u64_at(data, at + 8) ^ u64_at(SECRET, secret_at + 8),
    )


def xxh3_64(data):
    n = len(data)
    acc = n * P64_1
    if n <= 128:
        for at in [0, 16, 32, 48][: 1 + (n > 32) + (n > 64) + (n > 96)]:
            acc += mix16(data, at, 2 * at) + mix16(data, n - at - 16, 2 * at + 16)
        return avalanche(acc)
    if n <= 240:
        for i in range(8):
            acc += mix16(data, 16 * i, 16 * i)
        acc = avalanche(acc)
        for i in range(8, n // 16):
            acc += mix16(data, 16 * i, 16 * (i - 8) + 3)
        return avalanche(acc + mix16(data, n - 16, 119))
    return xxh3_long(data)


SECRET_WORDS = struct.unpack("<24Q", SECRET)
# Stripe s of a block takes the secret from byte 8 * s: lane i's key is word s + i.
LANE_KEYS = [SECRET_WORDS[i : i + 16] for i in range(8)]
LAST_STRIPE_KEYS = [(key,) for key in struct.unpack_from("<8Q", SECRET, 121)]


def accumulate(acc, words, lane_keys):
    """Adds stripes of 8 words each to the 8 lanes. The sums are taken a lane at a
    time over all the stripes, which is the same arithmetic and much faster in Python."""
    for i in range(8):
        lane = words[i::8]
        acc[i ^ 1] += sum(lane)
        keyed = map(int.__xor__, lane, lane_keys[i])
        acc[i] += sum((k & M32) * (k >> 32) for k in keyed)


def xxh3_long(data):
    n = len(data)
    acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1]
    blocks = (n - 1) // 1024
    for b in range(blocks):
        accumulate(acc, struct.unpack_from("<128Q", data, 1024 * b), LANE_KEYS)
        for i in range(8):
            a = acc[i] & M64
            acc[i] = ((a ^ (a >> 47) ^ SECRET_WORDS[16 + i]) * P32_1) & M64
    stripes = (n - 1 - 1024 * blocks) // 64
    words = struct.unpack_from("<%dQ" % (8 * stripes), data, 1024 * blocks)
    accumulate(acc, words, [keys[:stripes] for keys in LANE_KEYS])
    accumulate(acc, struct.unpack_from("<8Q", data, n - 64), LAST_STRIPE_KEYS)
    result = n * P64_1
    for i in range(4):
        result += mul_fold(
            (acc[2 * i] & M64) ^ u64_at(SECRET, 11 + 16 * i),
            (acc[2 * i + 1] & M64) ^ u64_at(SECRET, 19 + 16 * i),
        )
    return avalanche(result)


def read_file(path):
    """The file's bytes, after the checks that come before its body is read."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise Refused("there is no file at that path")
    except OSError as error:
        raise Refused("cannot read it: " + error.strerror)
    if not stat.S_ISREG(info.st_mode):
        raise Refused("it is not a regular file (a directory, a device or a pipe)")
    if info.st_size > MOST_BYTES:
        raise Refused("the file is %d bytes, more than any replay" % info.st_size)
    with open(path, "rb") as file:
        preamble = file.read(PREAMBLE)
        check_preamble(preamble, info.st_size)
        return preamble + file.read()


def check_preamble(data, size):
    """Steps 3 to 6 of "Reading, and what is refused", in their order."""

    def truncated(needs=PREAMBLE + TRAILER):
        return Refused(
            "the file is truncated: it holds %d bytes and needs at least %d" % (size, needs)
        )

    if size == 0:
        raise Refused("the file is empty")
    if not data.startswith(MAGIC):
        if MAGIC.startswith(data):
            raise truncated()
        raise Refused("this is not a Sandglass replay file")
    if len(data) < 10:
        raise truncated()
    version = struct.unpack_from("<H", data, 8)[0]
    if version > LAYOUT_VERSION:
        raise Refused("it was written by a newer Sandglass (replay format %d)" % version)
    if version == 0:
        raise damaged("its layout version is 0")
    if len(data) < PREAMBLE:
        raise truncated()
    length = struct.unpack_from("<Q", data, 10)[0]
    if size < length:
        raise truncated(length)
    if size > length:
        raise damaged("it goes on past its recorded end")
    if size < PREAMBLE + TRAILER:
        raise damaged("it is shorter than its fixed parts")


def read_header(r):
    """The header, decoded whole before any of its values is checked."""
    format_version = r.varint(16)
    rules_version = r.varint(16)
    seed = r.varint(64)
    time = r.varint(32)
    if time == 0:
        ruleset = {"time": "classic", "gain": r.varint(16), "threshold": r.varint(16)}
    elif time == 1:
        ruleset = {"time": "nethack"}
    else:
        raise damaged("its ruleset's time variant %d is unknown" % time)
    order = r.varint(32)
    if order > 1:
        raise damaged("its ruleset's order variant %d is unknown" % order)
    ruleset["order"] = ("initiative", "weighted")[order]
    created_at = r.varint(64)
    if format_version == 0:
        raise damaged("its tape format version is 0")
    if format_version != FORMAT_VERSION:
        raise Refused(
            "tape format version %d, but this reader reads version %d"
            % (format_version, FORMAT_VERSION)
        )
    if rules_version == 0:
        raise damaged("its rules version is 0")
    if rules_version not in RULES_VERSIONS:
        raise Refused(
            "recorded under rules version %d; this reader reads rules versions %s"
            % (rules_version, ", ".join(map(str, RULES_VERSIONS)))
        )
    if time == 0 and (ruleset["gain"] == 0 or ruleset["threshold"] > CAMEL_MOST_ENERGY):
        raise Refused(
            "classic rules with gain %d and threshold %d: the camel could never act"
            % (ruleset["gain"], ruleset["threshold"])
        )
    return {
        "format_version": format_version,
        "rules_version": rules_version,
        # A string, as JSON readers often hold numbers as doubles, exact only to 2^53.
        "seed": str(seed),
        "ruleset": ruleset,
        "created_at": created_at,
    }


def read_command(r, rules_version, event):
    """Reads one command. Returns None, or the refusal the fold is sure to give it
    whatever the game: a command the tape's rules do not have, a slot past `z`, or a
    boon no rose offers under the tape's rules.
    Neither is damage (the bytes decode); like a draw the seed does not give, each is
    refused at its event once the whole file has been read."""
    index = r.varint(32)
    if index not in COMMANDS:
        raise damaged("command variant %d is unknown" % index, event)
    name, fields, since = COMMANDS[index]
    values = []
    for field in fields:
        # A slot or an offset is a plain byte; a direction, boon or garment an enum's
        # variant index.
        value = r.take(1)[0] if field in BYTE_FIELDS else r.varint(32)
        if field not in BYTE_FIELDS and value not in FIELD_VALUES[field]:
            raise damaged(
                "%s holds %s %d, which does not exist" % (name, field, value), event
            )
        values.append((field, value))
    if since > rules_version:
        return Refused(
            "illegal command %s: it came with rules version %d, after the tape's %d"
            % (name, since, rules_version),
            event,
        )
    for field, value in values:
        if value not in FIELD_VALUES[field]:
            return Refused(
                "illegal command %s: %s %d names no letter" % (name, field, value), event
            )
        if field == "boon" and value >= FIRST_BOONS and rules_version < LATER_BOONS_SINCE:
            return Refused(
                "illegal command %s: boon %d came with rules version %d, after the tape's %d"
                % (name, value, LATER_BOONS_SINCE, rules_version),
                event,
            )
    return None


def read(path):
    data = read_file(path)
    body = data[:-8]
    if xxh3_64(body) != u64_at(data, len(data) - 8):
        raise damaged("its checksum does not match its contents")
    r = Bytes(body[:-8], PREAMBLE)
    summary = read_header(r)
    count = r.leb128()
    if count > r.left():  # every event takes at least one byte
        raise damaged("it claims more events than it holds")
    draws = generator(int(summary["seed"]), summary["rules_version"])
    events = commands = 0
    # The first event the fold is sure to refuse (a draw the seed does not give, or a
    # command no game under the tape's rules takes), reported once all else is read.
    illegal = None
    while True:
        run = r.leb128()
        if run > count - events:
            raise damaged("it holds more events than it claims")
        found = struct.unpack("<%dI" % run, r.take(4 * run))
        expected = tuple(itertools.islice(draws, run))
        if illegal is None and found != expected:
            i = next(i for i in range(run) if found[i] != expected[i])
            illegal = Refused(
                "draw %#010x differs from the generator's %#010x" % (found[i], expected[i]),
                events + i,
            )
        events += run
        if events == count:
            break
        refused = read_command(r, summary["rules_version"], events)
        illegal = illegal or refused
        events += 1
        commands += 1
    checkpoints = r.leb128()
    if checkpoints > r.left() // 9:
        raise damaged("it claims more checkpoints than it holds")
    previous = 0
    for _ in range(checkpoints):
        index = r.leb128()
        r.take(8)
        if not previous < index <= count:
            raise damaged("its checkpoints are out of order")
        previous = index
    if r.left():
        raise damaged("it holds bytes nothing accounts for")
    if r.over_long:
        raise damaged("a number in it is over-long: it is not written the one way")
    if illegal:
        raise illegal
    summary.update(
        events=count,
        commands=commands,
        draws=count - commands,
        checkpoints=checkpoints,
        hash="0x%016x" % u64_at(data, len(data) - 16),
    )
    return summary


def main(paths):
    refused = 0
    for path in paths:
        try:
            line = {"replay": path, "ok": True, **read(path)}
        except Refused as why:
            refused += 1
            line = {"replay": path, "ok": False, "error": str(why), "event": why.event}
        print(json.dumps(line), flush=True)
    return 1 if refused else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip())
    sys.exit(main(sys.argv[1:]))
