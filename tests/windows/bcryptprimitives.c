/*
 * A stand-in for Windows' bcryptprimitives.dll, for running the tests under
 * Wine only: Rust's standard library gets its random numbers from
 * ProcessPrng there, which Windows 10 and later have and Wine 8 lacks.
 * Never shipped: real Windows has the real one.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) {
            return FALSE;
        }
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
