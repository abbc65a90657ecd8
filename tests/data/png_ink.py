"""png_ink.py PNG - how much a screenshot shows: prints the number of distinct colours and
the share of pixels that are not white, read with the standard library alone (8-bit RGB or
RGBA, not interlaced: what Chromium's --screenshot writes). Run by tests/cli_report.sh."""
import struct
import sys
import zlib


def rows(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('%s: not a PNG' % path)
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            width, height, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit('%s: a PNG form this reader does not know' % path)
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b''.join(idat)), width * bpp
    prev, at = bytearray(stride), 0
    for _ in range(height):  # undo each row's filter (PNG spec, section 9)
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        if kind:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                if kind == 1:
                    line[x] = (line[x] + a) & 255
                elif kind == 2:
                    line[x] = (line[x] + b) & 255
                elif kind == 3:
                    line[x] = (line[x] + (a + b) // 2) & 255
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        yield [bytes(line[i:i + 3]) for i in range(0, stride, bpp)]
        prev = line


colours, pixels, ink = set(), 0, 0
for row in rows(sys.argv[1]):
    colours.update(row)
    pixels += len(row)
    ink += sum(px != b'\xff\xff\xff' for px in row)
print('%d colours, %.1f%% not white' % (len(colours), 100.0 * ink / max(pixels, 1)))
