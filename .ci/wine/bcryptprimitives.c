/* Wine 8.0 has no bcryptprimitives.dll, whose ProcessPrng Rust's standard library imports
 * for its random numbers: without it every Windows test binary exits before main. This
 * one-function stand-in fills the buffer through advapi32's RtlGenRandom
 * (SystemFunction036), which Wine has. Used only by the Wine test lane (.ci/cross-windows);
 * nothing of it ships. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
