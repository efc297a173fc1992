import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, ROOT } from "./binary";
import { elfSection, executableFormat } from "../release/executable-format";

test("dist/gatehouse is an x86-64 glibc ELF whose code section is the Bun runtime's, byte for byte", async () => {
  const binary = readFileSync(await buildBinary());
  const runtime = readFileSync(join(ROOT, "node_modules/bun/bin/bun.exe"));
  expect(executableFormat(binary)).toEqual({ kind: "elf", machine: process.arch === "arm64" ? "aarch64" : "x86-64", interpreter: expect.stringMatching(/^\/lib(64)?\/ld-linux-/) });
  const text = elfSection(binary, ".text")!;
  expect(text.length).toBeGreaterThan(1_000_000);
  expect(Buffer.compare(text, elfSection(runtime, ".text")!)).toBe(0);
  expect(elfSection(binary, ".no-such-section")).toBeNull();
}, 120_000);

test("Mach-O and PE headers name their CPU; anything else is unknown", () => {
  const macho = new Uint8Array(32);
  new DataView(macho.buffer).setUint32(0, 0xfeedfacf, true);
  new DataView(macho.buffer).setUint32(4, 0x0100000c, true);
  expect(executableFormat(macho)).toEqual({ kind: "mach-o", cpu: "arm64" });

  const pe = new Uint8Array(256);
  const v = new DataView(pe.buffer);
  v.setUint16(0, 0x4d5a);
  v.setUint32(0x3c, 0x80, true);
  v.setUint32(0x80, 0x50450000);
  v.setUint16(0x84, 0x8664, true);
  expect(executableFormat(pe)).toEqual({ kind: "pe", machine: "x86-64" });

  expect(executableFormat(new TextEncoder().encode("#!/bin/sh\necho not a binary\n".padEnd(80)))).toEqual({ kind: "unknown" });
});
