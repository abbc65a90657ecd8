/* elf_object.c - a named object's initial bytes from an ELF image (see elf_object.h). The
 * headers are copied out before use (the image need not be aligned), and every offset and
 * size is checked against the image before it is followed. */
#include "elf_object.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

/* [off, off + len) lies within an image of `size` bytes. */
static int inside(size_t size, uint64_t off, uint64_t len) { return off <= size && len <= size - off; }

static int section(const unsigned char *img, size_t size, const Elf64_Ehdr *eh, uint64_t i, Elf64_Shdr *out)
{
    const uint64_t at = eh->e_shoff + i * (uint64_t)sizeof *out;
    if (i >= eh->e_shnum || eh->e_shoff > size || !inside(size, at, sizeof *out)) return -1;
    memcpy(out, img + at, sizeof *out);
    return 0;
}

int mmt_elf_object(const void *image, size_t image_size, const char *name, void *out, size_t size)
{
    const unsigned char *img = image;
    Elf64_Ehdr eh;
    if (!img || image_size < sizeof eh) return -1;
    memcpy(&eh, img, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr))
        return -1;
    const size_t name_len = strlen(name);
    for (uint64_t s = 0; s < eh.e_shnum; s++) {
        Elf64_Shdr symtab, strtab;
        if (section(img, image_size, &eh, s, &symtab) != 0) return -1;
        if (symtab.sh_type != SHT_SYMTAB || symtab.sh_entsize != sizeof(Elf64_Sym) ||
            !inside(image_size, symtab.sh_offset, symtab.sh_size) ||
            section(img, image_size, &eh, symtab.sh_link, &strtab) != 0 ||
            !inside(image_size, strtab.sh_offset, strtab.sh_size))
            continue;
        for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symtab.sh_size; at += sizeof(Elf64_Sym)) {
            Elf64_Sym sym;
            memcpy(&sym, img + symtab.sh_offset + at, sizeof sym);
            /* the name, ending within the string table */
            if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size != size || sym.st_name >= strtab.sh_size ||
                strtab.sh_size - sym.st_name <= name_len ||
                memcmp(img + strtab.sh_offset + sym.st_name, name, name_len + 1) != 0)
                continue;
            Elf64_Shdr data;
            if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
                section(img, image_size, &eh, sym.st_shndx, &data) != 0 || data.sh_type != SHT_PROGBITS)
                return -1;
            /* a relocatable file's values are offsets into the section, a loadable one's addresses */
            const uint64_t base = eh.e_type == ET_REL ? 0 : data.sh_addr;
            if (sym.st_value < base || sym.st_value - base > data.sh_size || size > data.sh_size - (sym.st_value - base) ||
                !inside(image_size, data.sh_offset, data.sh_size))
                return -1;
            memcpy(out, img + data.sh_offset + (sym.st_value - base), size);
            return 0;
        }
    }
    return -1;
}
