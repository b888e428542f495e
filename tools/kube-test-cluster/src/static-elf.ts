/** Whether `elf` (the start of a file, its program headers included) is a static ELF executable:
 * an ELF with no PT_INTERP program header (the dynamic loader's path). False for anything else.
 */
export function isStaticElf(elf: Buffer): boolean {
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46) return false;
  const is64 = elf[4] === 2;
  const little = elf[5] === 1;
  const u16 = (at: number): number => (little ? elf.readUInt16LE(at) : elf.readUInt16BE(at));
  const u32 = (at: number): number => (little ? elf.readUInt32LE(at) : elf.readUInt32BE(at));
  const word = (at: number): number =>
    is64 ? Number(little ? elf.readBigUInt64LE(at) : elf.readBigUInt64BE(at)) : u32(at);
  const phoff = word(is64 ? 0x20 : 0x1c);
  const phentsize = u16(is64 ? 0x36 : 0x2a);
  const phnum = u16(is64 ? 0x38 : 0x2c);
  if (phnum === 0 || phoff + phnum * phentsize > elf.length) return false;
  const PT_INTERP = 3;
  for (let i = 0; i < phnum; i++) {
    if (u32(phoff + i * phentsize) === PT_INTERP) return false;
  }
  return true;
}
