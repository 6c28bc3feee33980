/*
 * elf.h: constant data written straight into an ELF object.
 *
 * LLVM's code generator copies a global's initializer element by element
 * (or at best byte string by byte string, through several buffers); tens
 * of megabytes of weights then cost more than compiling the kernel.  So
 * the kernel's object is generated with each constant tensor as an
 * uninitialised (SHT_NOBITS) section of the right size, named
 * EIN_ELF_PREFIX + its global's name, and ein_elf turns each such section
 * into a read-only SHT_PROGBITS section named ".rodata.ein." + the global's
 * name whose data follow the object in the file.  Only the section
 * headers change; relocations and symbols keep pointing at the sections.
 */
#ifndef EIN_DRIVER_ELF_H
#define EIN_DRIVER_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "ein.h"

/* The name the code generator must give the section of a constant. */
#define EIN_ELF_PREFIX ".bss.ein."

/* An ELF object being completed: its pieces, in file order. */
struct ein_elf;

/* Start from the object "obj" of "size" bytes (copied).  NULL after an
 * internal error unless it is a 64-bit little-endian relocatable ELF
 * object. */
struct ein_elf *ein_elf_alloc(ein_ctx *ctx, const void *obj, size_t size);
void ein_elf_free(struct ein_elf *elf);

/* Give section EIN_ELF_PREFIX + "global" the "bytes" bytes at "data"
 * (kept, not copied: they must outlive elf).  Returns -1 after an
 * internal error if there is no such uninitialised section of that size. */
int ein_elf_fill(ein_ctx *ctx, struct ein_elf *elf, const char *global,
	const void *data, uint64_t bytes);

/* The pieces of the completed object, to be written one after the
 * other: n_iov of them in *iov (owned by elf).  Returns -1 on error. */
int ein_elf_finish(ein_ctx *ctx, struct ein_elf *elf, struct iovec **iov,
	int *n_iov);

#endif
