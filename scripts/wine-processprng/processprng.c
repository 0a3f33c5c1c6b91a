/*
 * A test-only stand-in for bcryptprimitives.dll, for wine versions that do
 * not ship it (Debian 12's wine 8.0). Go's runtime (1.22 and later) loads
 * bcryptprimitives.dll from System32 in runtime.osinit and calls ProcessPrng
 * for its random numbers; without it, every Go program dies at start under
 * such a wine.
 *
 * ProcessPrng is forwarded to advapi32's SystemFunction036 (RtlGenRandom),
 * which wine implements. This DLL is for running tests under wine only: it
 * is copied into a private, throw-away WINEPREFIX by scripts/cross-test.sh
 * and never ships with anything.
 *
 * Build: scripts/wine-processprng/build.sh OUT_DIR
 */
#include <windows.h>

typedef BOOLEAN (WINAPI *rtlgenrandom_fn)(PVOID, ULONG);

static rtlgenrandom_fn rtlgenrandom(void)
{
	static rtlgenrandom_fn fn;
	if (fn == NULL) {
		HMODULE h = LoadLibraryA("advapi32.dll");
		if (h != NULL)
			fn = (rtlgenrandom_fn)(void *)GetProcAddress(h, "SystemFunction036");
	}
	return fn;
}

/* BOOL WINAPI ProcessPrng(PBYTE pbData, SIZE_T cbData): always TRUE on
 * Windows; here FALSE if RtlGenRandom is missing or fails, so that a broken
 * stand-in shows up instead of handing out zeros. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	rtlgenrandom_fn fn = rtlgenrandom();
	if (fn == NULL)
		return FALSE;
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!fn(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
	(void)inst;
	(void)reason;
	(void)reserved;
	return TRUE;
}
