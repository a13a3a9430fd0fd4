import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { PRIVATE_FILE_MODE } from '../../core/util/private-files.js';

/** Default room reserved for the journal (LEDGER_JOURNAL_RESERVE_KB): about 6,000 usage records. */
export const DEFAULT_RESERVE_BYTES = 4 * 1024 * 1024;

/** An entry waiting (`LIVE`) or landed (`DONE`); zeros end the entries. */
const LIVE = 0x4c495645;
const DONE = 0x444f4e45;
/** magic, payload length, first 4 bytes of the payload's SHA-256. */
const HEADER = 12;
const ZEROS = Buffer.alloc(64 * 1024);

/** One entry of the reserve. */
export interface ReserveEntry {
  offset: number;
  item: string;
}

/**
 * Room for the ledger journal reserved ahead on disk: a file of fixed size written full of zeros when opened (so its
 * blocks are allocated), into which entries are written in place (`pwrite` + `fdatasync`). Writing over blocks a file
 * already has needs no free space, so a full disk still takes entries until the reserve itself is full. (True on
 * ext4, xfs and tmpfs; copy-on-write file systems such as btrfs or ZFS allocate on every write.)
 *
 * Entries are appended; one that has landed is marked `DONE` in place; when every entry is done the used part is
 * zeroed again and the reserve is empty. A torn last entry (a crash during its write) fails its checksum and ends the
 * entries read at the next open.
 */
export class JournalReserve {
  private readonly fd: number;
  private tail = 0;
  private readonly live = new Map<number, string>();

  constructor(
    readonly file: string,
    readonly bytes: number,
  ) {
    this.fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, PRIVATE_FILE_MODE);
    try {
      this.reserve();
      this.read();
    } catch (error) {
      fs.closeSync(this.fd);
      throw error;
    }
  }

  /** Entries waiting. */
  get size(): number {
    return this.live.size;
  }

  /** Bytes in use (waiting and landed entries, until the reserve is emptied). */
  get used(): number {
    return this.tail;
  }

  /** The waiting entries, oldest first. */
  entries(): ReserveEntry[] {
    return [...this.live].map(([offset, item]) => ({ offset, item }));
  }

  /** Write `item` durably (returns after fdatasync); the entry's offset, or undefined when the reserve is full. */
  append(item: string): number | undefined {
    const payload = Buffer.from(item, 'utf8');
    const length = HEADER + payload.length;
    if (this.tail + length > this.bytes) return undefined;
    const entry = Buffer.allocUnsafe(length);
    entry.writeUInt32BE(LIVE, 0);
    entry.writeUInt32BE(payload.length, 4);
    checksum(payload).copy(entry, 8);
    payload.copy(entry, HEADER);
    writeAll(this.fd, entry, this.tail);
    fs.fdatasyncSync(this.fd);
    const offset = this.tail;
    this.live.set(offset, item);
    this.tail += length;
    return offset;
  }

  /** Mark entries as landed; when none is left waiting, zero the used part (the reserve is empty again). */
  done(offsets: number[]): void {
    if (offsets.length === 0) return;
    const mark = Buffer.alloc(4);
    mark.writeUInt32BE(DONE, 0);
    for (const offset of offsets) {
      if (!this.live.delete(offset)) continue;
      writeAll(this.fd, mark, offset);
    }
    if (this.live.size === 0) this.zero(0, this.tail);
    fs.fdatasyncSync(this.fd);
    if (this.live.size === 0) this.tail = 0;
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  /** Grow the file to `bytes` with zeros written (not a sparse hole: the blocks must be allocated now). */
  private reserve(): void {
    const size = fs.fstatSync(this.fd).size;
    if (size >= this.bytes) return;
    try {
      this.zero(size, this.bytes);
      fs.fsyncSync(this.fd);
    } catch (error) {
      fs.ftruncateSync(this.fd, size); // give back what was taken of a full disk
      throw error;
    }
  }

  private read(): void {
    const header = Buffer.alloc(HEADER);
    let offset = 0;
    let torn = false;
    while (offset + HEADER <= this.bytes) {
      fs.readSync(this.fd, header, 0, HEADER, offset);
      const magic = header.readUInt32BE(0);
      const length = header.readUInt32BE(4);
      if (magic === 0 && length === 0) break;
      torn = true;
      if ((magic !== LIVE && magic !== DONE) || offset + HEADER + length > this.bytes) break;
      const payload = Buffer.alloc(length);
      fs.readSync(this.fd, payload, 0, length, offset + HEADER);
      if (!checksum(payload).equals(header.subarray(8, 12))) break;
      torn = false;
      if (magic === LIVE) this.live.set(offset, payload.toString('utf8'));
      offset += HEADER + length;
    }
    this.tail = offset;
    // A torn entry (a crash during its write): clear the rest, so no part of it is read as an entry later.
    if (torn) this.zero(offset, this.bytes);
    if (this.live.size === 0 && this.tail > 0) {
      this.zero(0, this.tail);
      this.tail = 0;
    }
    fs.fdatasyncSync(this.fd);
  }

  private zero(from: number, to: number): void {
    for (let position = from; position < to; position += ZEROS.length)
      writeAll(this.fd, ZEROS.subarray(0, Math.min(ZEROS.length, to - position)), position);
  }
}

function checksum(payload: Buffer): Buffer {
  return createHash('sha256').update(payload).digest().subarray(0, 4);
}

function writeAll(fd: number, buffer: Buffer, position: number): void {
  let written = 0;
  while (written < buffer.length)
    written += fs.writeSync(fd, buffer, written, buffer.length - written, position + written);
}
