/*
 * elf.c: filling the uninitialised sections of constant tensors in an
 * ELF object (see elf.h).
 *
 * The object is copied and its section headers patched in the copy; the
 * file is then the copy, followed by each section's data (after zero
 * padding to its alignment) and by a new section-name table: the old one
 * plus the new names (".rodata.ein.*", so that linkers place the data
 * with the other read-only data).  The old table stays where it was,
 * unreferenced.  LLVM gives symbols and section names one string table,
 * which is why the new one keeps every old string at its offset.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "driver/elf.h"

#define RODATA_PREFIX ".rodata.ein."
/* The largest alignment of a constant's section (LLVM gives 64). */
#define MAX_ALIGN 4096

static const char zeros[MAX_ALIGN];

/* obj: the patched copy of the object; size: its size;
 * strtab, strtab_size: the new section-name table;
 * end: the size of the file so far;
 * n_iov, iov: the pieces of the file, the object first. */
struct ein_elf {
	unsigned char *obj;
	size_t size;
	char *strtab;
	size_t strtab_size;
	uint64_t end;
	int n_iov;
	struct iovec *iov;
};

void ein_elf_free(struct ein_elf *elf)
{
	if (!elf)
		return;
	free(elf->obj);
	free(elf->strtab);
	free(elf->iov);
	free(elf);
}

static Elf64_Ehdr *header(struct ein_elf *elf)
{
	return (Elf64_Ehdr *) elf->obj;
}

/* Section "i", whose header the checks of is_elf64le keep in bounds. */
static Elf64_Shdr *section(struct ein_elf *elf, int i)
{
	return (Elf64_Shdr *) (elf->obj + header(elf)->e_shoff +
		(size_t) i * sizeof(Elf64_Shdr));
}

/* Is the object a 64-bit little-endian relocatable ELF file whose
 * section headers and name table lie inside it (and is the host
 * little-endian, since the headers are read in place)? */
static int is_elf64le(const unsigned char *obj, size_t size)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *) obj;
	const Elf64_Shdr *s;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || size < sizeof(*h) ||
	    memcmp(h->e_ident, ELFMAG, SELFMAG) ||
	    h->e_ident[EI_CLASS] != ELFCLASS64 ||
	    h->e_ident[EI_DATA] != ELFDATA2LSB || h->e_type != ET_REL ||
	    h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shoff % 8 ||
	    h->e_shoff > size || h->e_shstrndx >= h->e_shnum ||
	    (size - h->e_shoff) / sizeof(Elf64_Shdr) < h->e_shnum)
		return 0;
	s = (const Elf64_Shdr *) (obj + h->e_shoff) + h->e_shstrndx;
	return s->sh_offset <= size && s->sh_size <= size - s->sh_offset;
}

/* Append a piece of the file. */
static int push(struct ein_elf *elf, const void *data, size_t len)
{
	struct iovec *iov = realloc(elf->iov, (elf->n_iov + 1) * sizeof(*iov));

	if (!iov)
		return -1;
	elf->iov = iov;
	iov[elf->n_iov].iov_base = (void *) data;
	iov[elf->n_iov++].iov_len = len;
	elf->end += len;
	return 0;
}

struct ein_elf *ein_elf_alloc(ein_ctx *ctx, const void *obj, size_t size)
{
	struct ein_elf *elf;
	const Elf64_Shdr *names;

	if (!is_elf64le(obj, size)) {
		ein_internal(ctx, "the object is not a 64-bit little-endian "
			"ELF object");
		return NULL;
	}
	elf = calloc(1, sizeof(*elf));
	if (!elf || !(elf->obj = malloc(size)))
		return (ein_elf_free(elf), NULL);
	memcpy(elf->obj, obj, size);
	elf->size = size;
	names = section(elf, header(elf)->e_shstrndx);
	elf->strtab_size = names->sh_size;
	elf->strtab = malloc(elf->strtab_size + 1);
	if (!elf->strtab || push(elf, elf->obj, size) < 0)
		return (ein_elf_free(elf), NULL);
	memcpy(elf->strtab, elf->obj + names->sh_offset, elf->strtab_size);
	return elf;
}

/* The section named "name", -1 if none. */
static int find_section(struct ein_elf *elf, const char *name)
{
	const Elf64_Shdr *names = section(elf, header(elf)->e_shstrndx);
	size_t len = strlen(name);
	int i;

	for (i = 0; i < header(elf)->e_shnum; ++i) {
		uint64_t at = section(elf, i)->sh_name;

		if (at < names->sh_size && names->sh_size - at > len &&
		    !memcmp(elf->obj + names->sh_offset + at, name, len + 1))
			return i;
	}
	return -1;
}

/* Add "prefix" + "name" to the new name table; return its offset. */
static int64_t add_name(struct ein_elf *elf, const char *prefix,
	const char *name)
{
	size_t len = strlen(prefix) + strlen(name) + 1;
	char *t = realloc(elf->strtab, elf->strtab_size + len);
	int64_t at = elf->strtab_size;

	if (!t)
		return -1;
	elf->strtab = t;
	snprintf(t + at, len, "%s%s", prefix, name);
	elf->strtab_size += len;
	return at;
}

/* Pad the file with zeros to a multiple of "align". */
static int pad(struct ein_elf *elf, uint64_t align)
{
	uint64_t rem = align > 1 ? elf->end % align : 0;

	return rem ? push(elf, zeros, align - rem) : 0;
}

int ein_elf_fill(ein_ctx *ctx, struct ein_elf *elf, const char *global,
	const void *data, uint64_t bytes)
{
	size_t len = strlen(EIN_ELF_PREFIX) + strlen(global) + 1;
	char name[len];
	Elf64_Shdr *s;
	int64_t at;
	int i;

	snprintf(name, len, "%s%s", EIN_ELF_PREFIX, global);
	i = find_section(elf, name);
	s = i >= 0 ? section(elf, i) : NULL;
	if (!s || s->sh_type != SHT_NOBITS || s->sh_size != bytes ||
	    s->sh_addralign > MAX_ALIGN) {
		ein_internal(ctx, "no uninitialised section %s of %llu bytes "
			"in the object", name, (unsigned long long) bytes);
		return -1;
	}
	at = add_name(elf, RODATA_PREFIX, global);
	if (at < 0 || pad(elf, s->sh_addralign) < 0)
		return -1;
	s->sh_type = SHT_PROGBITS;
	s->sh_flags = SHF_ALLOC;
	s->sh_offset = elf->end;
	s->sh_name = at;
	return push(elf, data, bytes);
}

int ein_elf_finish(ein_ctx *ctx, struct ein_elf *elf, struct iovec **iov,
	int *n_iov)
{
	Elf64_Shdr *names = section(elf, header(elf)->e_shstrndx);

	names->sh_offset = elf->end;
	names->sh_size = elf->strtab_size;
	if (push(elf, elf->strtab, elf->strtab_size) < 0)
		return -1;
	*iov = elf->iov;
	*n_iov = elf->n_iov;
	return 0;
}
