// The soak run's chart as a PNG, with no drawing library: two panels over time (p99 latency, resident memory),
// axes with their maxima, written by hand into an RGB buffer and encoded with zlib (PNG is a deflated bitmap
// behind a few CRC-checked chunks). Labels use a 3×5 pixel font of the characters they need. bench/fleet-plot.ts
// draws on the same canvas.
import * as Zlib from "node:zlib"

export const W = 900
export const H = 660
const FONT: Record<string, string> = {
  "0": "111101101101111",
  "1": "010110010010111",
  "2": "111001111100111",
  "3": "111001111001111",
  "4": "101101111001001",
  "5": "111100111001111",
  "6": "111100111101111",
  "7": "111001001001001",
  "8": "111101111101111",
  "9": "111101111001111",
  ".": "000000000000010",
  " ": "000000000000000",
  "p": "111101111100100",
  "m": "000111111101101",
  "s": "011100010001110",
  "M": "101111111101101",
  "B": "110101110101110",
  "R": "110101110101101",
  "S": "011100010001110",
  "t": "010111010010011",
  "i": "010000010010010",
  "e": "111101111100111",
  "c": "000111100100111",
  "n": "000110101101101",
  "a": "000011101101011",
  "x": "000101010010101",
  "l": "010010010010011",
  "y": "000101111001111",
  "r": "000110101100100",
  "o": "000111101101111",
  "(": "001010010010001",
  ")": "100010010010100",
  ",": "000000000010100",
  "d": "001001111101111",
  "g": "111101111001111",
  "k": "100101110101101",
  "N": "101111111111101",
  "A": "010101111101101",
  "P": "110101110100100",
  "I": "111010010010111",
  "=": "000111000111000",
  "/": "001001010100100",
  "h": "100100111101101",
  "u": "000101101101111",
  "v": "000101101101010",
  "-": "000000111000000",
  ":": "000010000010000",
  "w": "000101101111101",
  "f": "011010111010010",
  "b": "100100111101111",
  "E": "111100111100111",
  "L": "100100100100111",
  "T": "111010010010010",
  "H": "101101111101101",
  "C": "111100100100111",
  "U": "101101101101111",
  "D": "110101101101110",
  "O": "111101101101111",
  "K": "101101110101101"
}

export class Canvas {
  readonly pixels = Buffer.alloc(W * H * 3, 255)
  set(x: number, y: number, rgb: readonly [number, number, number]) {
    if (x < 0 || y < 0 || x >= W || y >= H) return
    const i = (Math.round(y) * W + Math.round(x)) * 3
    this.pixels[i] = rgb[0]
    this.pixels[i + 1] = rgb[1]
    this.pixels[i + 2] = rgb[2]
  }
  line(x0: number, y0: number, x1: number, y1: number, rgb: readonly [number, number, number], width = 1) {
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1)
    for (let s = 0; s <= steps; s++) {
      const x = x0 + ((x1 - x0) * s) / steps
      const y = y0 + ((y1 - y0) * s) / steps
      for (let d = 0; d < width; d++) this.set(x, y + d, rgb)
    }
  }
  text(x: number, y: number, text: string, scale = 2, rgb: readonly [number, number, number] = [0, 0, 0]) {
    for (const ch of text) {
      const glyph = FONT[ch] ?? FONT[" "]!
      for (let i = 0; i < 15; i++) {
        if (glyph[i] !== "1") continue
        for (let dx = 0; dx < scale; dx++) {
          for (let dy = 0; dy < scale; dy++) {
            this.set(x + (i % 3) * scale + dx, y + Math.floor(i / 3) * scale + dy, rgb)
          }
        }
      }
      x += 4 * scale
    }
  }
}

const chunk = (type: string, data: Buffer) => {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "ascii"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(Zlib.crc32(body) >>> 0)
  return Buffer.concat([len, body, crc])
}

export const encodePng = (pixels: Buffer) => {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(W, 0)
  header.writeUInt32BE(H, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // RGB
  const raw = Buffer.alloc((W * 3 + 1) * H)
  for (let y = 0; y < H; y++) pixels.copy(raw, y * (W * 3 + 1) + 1, y * W * 3, (y + 1) * W * 3)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", Zlib.deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0))
  ])
}

export interface Point {
  readonly seconds: number
  readonly p99: number
  readonly rss: number
  /** the machine's 1-minute load average, to read the latency beside what else ran */
  readonly load: number
}

/** Three panels over the run's minutes: p99 (ms), resident memory (MB) and the machine's load average. */
export const drawSoak = (points: ReadonlyArray<Point>): Buffer => {
  const c = new Canvas()
  const left = 90
  const right = W - 20
  const maxT = Math.max(1, ...points.map((p) => p.seconds))
  const xOf = (seconds: number) => left + ((right - left) * seconds) / maxT
  const panel = (
    top: number,
    bottom: number,
    label: string,
    values: ReadonlyArray<number>,
    rgb: readonly [number, number, number]
  ) => {
    const max = Math.max(1, ...values) * 1.1
    c.line(left, top, left, bottom, [0, 0, 0])
    c.line(left, bottom, right, bottom, [0, 0, 0])
    for (let g = 1; g <= 4; g++) {
      const y = bottom - ((bottom - top) * g) / 4
      c.line(left + 1, y, right, y, [225, 225, 225])
      c.text(8, y - 5, (max * g / 4).toFixed(0))
    }
    c.text(left + 10, top - 18, label, 3)
    let prev: [number, number] | undefined
    points.forEach((p, i) => {
      const x = xOf(p.seconds)
      const y = bottom - ((bottom - top) * values[i]!) / max
      if (prev) c.line(prev[0], prev[1], x, y, rgb, 2)
      prev = [x, y]
    })
  }
  panel(40, 230, "p99 ms", points.map((p) => p.p99), [200, 40, 40])
  panel(290, 480, "RSS MB", points.map((p) => p.rss), [40, 80, 200])
  panel(540, 620, "load", points.map((p) => p.load), [90, 90, 90])
  // a tick every minute (every 5 on a long run), labelled in minutes
  const minutes = maxT / 60
  const every = minutes > 10 ? 5 : 1
  for (let m = 0; m <= minutes; m += every) {
    c.line(xOf(m * 60), 620, xOf(m * 60), 626, [0, 0, 0])
    c.text(xOf(m * 60) - 4, 632, String(m), 2)
  }
  c.text(right - 40, 646, "min", 2)
  return encodePng(c.pixels)
}
