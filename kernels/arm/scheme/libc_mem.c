/*
 * memcpy, memset, memcmp: the images link no C library, but compilers emit calls to these for struct copies and
 * byte loops, and implementations written for the pqm4 API call them. Byte loops: they are not on any hot path of
 * our kernels, and they must not be recognised as themselves (gcc's loop distribution, clang's loop idioms).
 */
#include <stddef.h>
#include <stdint.h>

#if defined(__clang__)
#define PQH_NO_LIBC_CALLS __attribute__((no_builtin))
#else
#define PQH_NO_LIBC_CALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif

PQH_NO_LIBC_CALLS void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
    return dst;
}

PQH_NO_LIBC_CALLS void *memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (d < s) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        for (size_t i = n; i > 0; i--)
            d[i - 1] = s[i - 1];
    }
    return dst;
}

PQH_NO_LIBC_CALLS void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)c;
    return dst;
}

PQH_NO_LIBC_CALLS int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}
