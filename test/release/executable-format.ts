/**
 * Reads just enough of an executable's headers to tell which platform it is for, and where an
 * ELF file's code (.text) lies: the release smoke checks artifacts it cannot run this way.
 */

export type ExecutableFormat =
  | { kind: "elf"; machine: "x86-64" | "aarch64" | number; interpreter: string | null }
  | { kind: "mach-o"; cpu: "x86-64" | "arm64" | number }
  | { kind: "pe"; machine: "x86-64" | "arm64" | number }
  | { kind: "unknown" };

const ELF_MACHINES: Record<number, "x86-64" | "aarch64"> = { 62: "x86-64", 183: "aarch64" };
const MACHO_CPUS: Record<number, "x86-64" | "arm64"> = { 0x01000007: "x86-64", 0x0100000c: "arm64" };
const PE_MACHINES: Record<number, "x86-64" | "arm64"> = { 0x8664: "x86-64", 0xaa64: "arm64" };

export function executableFormat(bytes: Uint8Array): ExecutableFormat {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 64 && view.getUint32(0) === 0x7f454c46) {
    // ELF64 little-endian: program headers at e_phoff (0x20), e_phentsize (0x36), e_phnum (0x38).
    const machine = view.getUint16(0x12, true);
    const phoff = Number(view.getBigUint64(0x20, true));
    const phentsize = view.getUint16(0x36, true);
    let interpreter: string | null = null;
    for (let i = 0; i < view.getUint16(0x38, true); i++) {
      const ph = phoff + i * phentsize;
      if (view.getUint32(ph, true) !== 3) continue; // PT_INTERP
      const offset = Number(view.getBigUint64(ph + 8, true));
      const size = Number(view.getBigUint64(ph + 32, true));
      interpreter = new TextDecoder().decode(bytes.subarray(offset, offset + size)).replace(/\0+$/, "");
    }
    return { kind: "elf", machine: ELF_MACHINES[machine] ?? machine, interpreter };
  }
  if (bytes.length >= 8 && view.getUint32(0, true) === 0xfeedfacf) {
    const cpu = view.getUint32(4, true);
    return { kind: "mach-o", cpu: MACHO_CPUS[cpu] ?? cpu };
  }
  if (bytes.length >= 64 && view.getUint16(0) === 0x4d5a) {
    const pe = view.getUint32(0x3c, true);
    if (pe + 6 <= bytes.length && view.getUint32(pe) === 0x50450000) {
      const machine = view.getUint16(pe + 4, true);
      return { kind: "pe", machine: PE_MACHINES[machine] ?? machine };
    }
  }
  return { kind: "unknown" };
}

/** The bytes of an ELF64 file's section `name` (e.g. ".text"), or null. */
export function elfSection(bytes: Uint8Array, name: string): Uint8Array | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 64 || view.getUint32(0) !== 0x7f454c46) return null;
  const shoff = Number(view.getBigUint64(0x28, true));
  const shentsize = view.getUint16(0x3a, true);
  const shnum = view.getUint16(0x3c, true);
  const header = (i: number) => {
    const at = shoff + i * shentsize;
    return { name: view.getUint32(at, true), offset: Number(view.getBigUint64(at + 24, true)), size: Number(view.getBigUint64(at + 32, true)) };
  };
  const names = header(view.getUint16(0x3e, true));
  const decoder = new TextDecoder();
  for (let i = 0; i < shnum; i++) {
    const h = header(i);
    const start = names.offset + h.name;
    const end = bytes.indexOf(0, start);
    if (decoder.decode(bytes.subarray(start, end)) === name) return bytes.subarray(h.offset, h.offset + h.size);
  }
  return null;
}
