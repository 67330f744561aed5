/*
 * C++ stream operations (libstdc++), timed whole as I/O in function profiles
 * only: no Darshan counter changes here. `file << x` formats into the
 * filebuf's buffer and reaches write(2) once in a while; the operation, not
 * just the system call, is I/O time for the user and for the static model.
 *
 * What can be wrapped is what a program calls in libstdc++.so through the
 * PLT: the members of the explicit instantiations basic_ostream<char> and
 * basic_istream<char> (their inline members are inlined into the program at
 * -O1 and above, but what they call is out of line: operator<<(double)
 * becomes _M_insert<double>, operator<<(const char *) and << std::string
 * become __ostream_insert), the free operators and getline the library
 * instantiates, and basic_filebuf<char>::open/close (close also runs from
 * the filebuf's destructor, which calls it through the PLT). Calls inside
 * libstdc++ between wrapped functions (operator<<(int) calling
 * _M_insert<long>) go through the PLT too and are nested spans, which
 * iol_span_end counts once. Not wrapped: templates the program instantiates
 * itself (inserters and extractors of user types, whose own << and >> on
 * the stream are wrapped; streams of character or traits types libstdc++
 * does not instantiate), wchar_t streams (left out), ignore() and
 * ignore(n) (exported in two symbol versions), manipulators that only set
 * flags, seekg/seekp/tellg/tellp (their lseek is intercepted), and
 * programs linked with -static-libstdc++.
 *
 * An operation counts only when the stream's buffer is a file buffer: a
 * std::basic_filebuf<char> or a class derived from it (ofstream, ifstream,
 * fstream, and std::cout & co. after sync_with_stdio(false), whose buffers
 * are __gnu_cxx::stdio_filebuf), or a __gnu_cxx::stdio_sync_filebuf<char>,
 * the buffer of std::cin/cout/cerr/clog with the default
 * sync_with_stdio(true), which forwards to the C library's stdio: `std::cout
 * << x` then counts whole as printf does (its fwrite is intercepted and
 * counted once). String streams format into memory and never count.
 *
 * Finding the buffer from C relies on the Itanium C++ ABI and on the layout
 * of libstdc++'s basic_ios, part of the ABI of libstdc++.so.6 (checked
 * against the installed g++ 12 by TestCxxStreamLayout, funcs_lang_test.go):
 *   - a basic_ostream<char> or basic_istream<char> (sub)object starts with
 *     its vtable pointer, and the offset of its only virtual base,
 *     basic_ios<char>, is the vtable's entry -3 (entries -1 and -2 are the
 *     type_info and the offset to top);
 *   - basic_ios<char> is ios_base (216 bytes on LP64), then _M_tie,
 *     _M_fill, _M_fill_init and _M_streambuf at byte 232 (IOS_STREAMBUF);
 *   - the buffer's dynamic type is read from its own vtable pointer and
 *     classified once per vtable with libstdc++'s __dynamic_cast against
 *     the exported type_info objects of basic_streambuf<char>,
 *     basic_filebuf<char> and stdio_sync_filebuf<char>.
 *
 * Without function profiling (iol_span_on() false) every wrapper reads one
 * thread-local word and calls through. Exceptions thrown by the real call
 * (a stream with exceptions() set, thread cancellation) unwind through the
 * wrapper's frame, described by the asynchronous unwind tables GCC emits by
 * default on x86-64 and AArch64 Linux, and lose only that operation's own
 * time: spans leave the thread's operation depth alone (iolens.h).
 */
#include "iolens.h"

#include <errno.h>

/* Offset of basic_ios<char>::_M_streambuf, checked on LP64 only: elsewhere
 * no C++ operation is timed. */
#if __SIZEOF_POINTER__ == 8 && __SIZEOF_LONG__ == 8
#define IOS_STREAMBUF 232
#endif

/* ---- the kind of a stream's buffer ---- */

/* Buffer vtables seen, each with bit 0 set for a file buffer; 0 = empty. */
#define KINDS 16
static uintptr_t kinds[KINDS];

typedef void *(*dyncast_fn)(const void *, const void *, const void *, ptrdiff_t);

static struct {
	int done;
	dyncast_fn dyncast;
	const void *streambuf, *filebuf, *sync_filebuf; /* type_info objects */
} rtti;

/* A symbol of libstdc++: in the global scope, else in a library loaded
 * with RTLD_LOCAL (iol_resolve). Which copy of a type_info object is found
 * does not matter: libstdc++ compares type_infos by name. */
static void *lookup(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	return p ? p : iol_resolve(name);
}

static int classify(const void *sb, uintptr_t vt)
{
	int saved = errno;
	if (!__atomic_load_n(&rtti.done, __ATOMIC_ACQUIRE)) {
		/* Races store the same values. */
		rtti.dyncast = (dyncast_fn)lookup("__dynamic_cast");
		rtti.streambuf = lookup("_ZTISt15basic_streambufIcSt11char_traitsIcEE");
		rtti.filebuf = lookup("_ZTISt13basic_filebufIcSt11char_traitsIcEE");
		rtti.sync_filebuf = lookup("_ZTIN9__gnu_cxx18stdio_sync_filebufIcSt11char_traitsIcEEE");
		__atomic_store_n(&rtti.done, 1, __ATOMIC_RELEASE);
	}
	int file = 0;
	if (rtti.dyncast && rtti.streambuf)
		file = (rtti.filebuf && rtti.dyncast(sb, rtti.streambuf, rtti.filebuf, -1)) ||
		       (rtti.sync_filebuf && rtti.dyncast(sb, rtti.streambuf, rtti.sync_filebuf, -1));
	for (int i = 0; i < KINDS; i++) {
		uintptr_t expected = 0;
		if (__atomic_compare_exchange_n(&kinds[i], &expected, vt | (uintptr_t)file, 0, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED) ||
		    (expected & ~(uintptr_t)1) == vt)
			break;
	}
	errno = saved;
	return file;
}

/* Whether the buffer of s, a basic_ostream<char> or basic_istream<char>,
 * is a file buffer. */
static inline int on_file(const void *s)
{
#ifndef IOS_STREAMBUF
	(void)s;
	return 0;
#else
	const char *p = s;
	const ptrdiff_t *vptr = *(const ptrdiff_t *const *)p;
	const char *ios = p + vptr[-3];
	const void *sb = *(const void *const *)(ios + IOS_STREAMBUF);
	if (IOL_UNLIKELY(!sb))
		return 0;
	uintptr_t vt = *(const uintptr_t *)sb;
	for (int i = 0; i < KINDS; i++) {
		uintptr_t k = __atomic_load_n(&kinds[i], __ATOMIC_ACQUIRE);
		if ((k & ~(uintptr_t)1) == vt)
			return (int)(k & 1);
		if (!k)
			break;
	}
	return classify(sb, vt);
#endif
}

/* ---- wrappers ---- */

/* A wrapper returning ret; the operation counts when file holds (an
 * expression of the arguments). */
#define WRAP(ret, sym, file, params, args)                      \
	IOL_REAL_DECL(ret, sym, params);                        \
	ret sym params                                          \
	{                                                       \
		IOL_RESOLVE(sym);                               \
		if (IOL_LIKELY(!iol_span_on()))                 \
			return real_##sym args;                 \
		iol_tick t1 = iol_now();                        \
		if (!(file))                                    \
			return real_##sym args;                 \
		iol_tick io1 = iol_fn_io_mark();                \
		ret v = real_##sym args;                        \
		iol_span_end(t1, io1);                          \
		return v;                                       \
	}

/* Stream members and free functions whose first argument is the stream:
 * no other argument (S0), one of type T (S1), two (S2). */
#define S0(ret, sym) WRAP(ret, sym, on_file(s), (void *s), (s))
#define S1(ret, sym, T) WRAP(ret, sym, on_file(s), (void *s, T a), (s, a))
#define S2(ret, sym, T, U) WRAP(ret, sym, on_file(s), (void *s, T a, U b), (s, a, b))

/* std::ostream (basic_ostream<char>) */
S1(void *, _ZNSo9_M_insertIlEERSoT_, long)
S1(void *, _ZNSo9_M_insertImEERSoT_, unsigned long)
S1(void *, _ZNSo9_M_insertIxEERSoT_, long long)
S1(void *, _ZNSo9_M_insertIyEERSoT_, unsigned long long)
S1(void *, _ZNSo9_M_insertIbEERSoT_, _Bool)
S1(void *, _ZNSo9_M_insertIdEERSoT_, double)
S1(void *, _ZNSo9_M_insertIeEERSoT_, long double)
S1(void *, _ZNSo9_M_insertIPKvEERSoT_, const void *)
S1(void *, _ZNSolsEs, short)
S1(void *, _ZNSolsEt, unsigned short)
S1(void *, _ZNSolsEi, int)
S1(void *, _ZNSolsEj, unsigned)
S1(void *, _ZNSolsEl, long)
S1(void *, _ZNSolsEm, unsigned long)
S1(void *, _ZNSolsEx, long long)
S1(void *, _ZNSolsEy, unsigned long long)
S1(void *, _ZNSolsEb, _Bool)
S1(void *, _ZNSolsEf, float)
S1(void *, _ZNSolsEd, double)
S1(void *, _ZNSolsEe, long double)
S1(void *, _ZNSolsEPKv, const void *)
S1(void *, _ZNSolsEPSt15basic_streambufIcSt11char_traitsIcEE, void *)
S1(void *, _ZNSo3putEc, char)
S2(void *, _ZNSo5writeEPKcl, const char *, long)
S0(void *, _ZNSo5flushEv)
/* __ostream_insert(os, s, n): << const char *, << std::string, << char */
S2(void *, _ZSt16__ostream_insertIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l, const char *, long)
/* operator<<(ostream &, const char * / char / signed and unsigned char
 * and their pointers), called out of line at -O0 */
S1(void *, _ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc, const char *)
S1(void *, _ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKa, const signed char *)
S1(void *, _ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKh, const unsigned char *)
S1(void *, _ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_c, char)
S1(void *, _ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_a, signed char)
S1(void *, _ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_h, unsigned char)
/* operator<<(ostream &, const std::string &), both string ABIs */
S1(void *, _ZStlsIcSt11char_traitsIcESaIcEERSt13basic_ostreamIT_T0_ES7_RKNSt7__cxx1112basic_stringIS4_S5_T1_EE, const void *)
S1(void *, _ZStlsIcSt11char_traitsIcESaIcEERSt13basic_ostreamIT_T0_ES7_RKSbIS4_S5_T1_E, const void *)
/* std::endl, std::ends, std::flush */
S0(void *, _ZSt4endlIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_)
S0(void *, _ZSt4endsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_)
S0(void *, _ZSt5flushIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_)

/* std::istream (basic_istream<char>) */
S1(void *, _ZNSi10_M_extractIlEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractImEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractIxEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractIyEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractItEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractIjEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractIbEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractIfEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractIdEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractIeEERSiRT_, void *)
S1(void *, _ZNSi10_M_extractIPvEERSiRT_, void *)
S1(void *, _ZNSirsERs, void *)
S1(void *, _ZNSirsERt, void *)
S1(void *, _ZNSirsERi, void *)
S1(void *, _ZNSirsERj, void *)
S1(void *, _ZNSirsERl, void *)
S1(void *, _ZNSirsERm, void *)
S1(void *, _ZNSirsERx, void *)
S1(void *, _ZNSirsERy, void *)
S1(void *, _ZNSirsERb, void *)
S1(void *, _ZNSirsERf, void *)
S1(void *, _ZNSirsERd, void *)
S1(void *, _ZNSirsERe, void *)
S1(void *, _ZNSirsERPv, void *)
S1(void *, _ZNSirsEPSt15basic_streambufIcSt11char_traitsIcEE, void *)
S0(int, _ZNSi3getEv)
S0(int, _ZNSi4peekEv)
S1(void *, _ZNSi3getERc, char *)
S2(void *, _ZNSi3getEPcl, char *, long)
WRAP(void *, _ZNSi3getEPclc, on_file(s), (void *s, char *a, long n, char d), (s, a, n, d))
S1(void *, _ZNSi3getERSt15basic_streambufIcSt11char_traitsIcEE, void *)
S2(void *, _ZNSi3getERSt15basic_streambufIcSt11char_traitsIcEEc, void *, char)
S2(void *, _ZNSi7getlineEPcl, char *, long)
WRAP(void *, _ZNSi7getlineEPclc, on_file(s), (void *s, char *a, long n, char d), (s, a, n, d))
S2(void *, _ZNSi4readEPcl, char *, long)
S2(long, _ZNSi8readsomeEPcl, char *, long)
S2(void *, _ZNSi6ignoreEli, long, int)
/* std::getline(istream &, string &[, char]), both string ABIs */
S1(void *, _ZSt7getlineIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RNSt7__cxx1112basic_stringIS4_S5_T1_EE, void *)
S2(void *, _ZSt7getlineIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RNSt7__cxx1112basic_stringIS4_S5_T1_EES4_, void *, char)
S1(void *, _ZSt7getlineIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RSbIS4_S5_T1_E, void *)
S2(void *, _ZSt7getlineIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RSbIS4_S5_T1_ES4_, void *, char)
/* operator>>(istream &, string & / char & / char *) */
S1(void *, _ZStrsIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RNSt7__cxx1112basic_stringIS4_S5_T1_EE, void *)
S1(void *, _ZStrsIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RSbIS4_S5_T1_E, void *)
S1(void *, _ZStrsIcSt11char_traitsIcEERSt13basic_istreamIT_T0_ES6_RS3_, char *)
S1(void *, _ZStrsIcSt11char_traitsIcEERSt13basic_istreamIT_T0_ES6_PS3_, char *)

/* void std::__istream_extract(istream &, char *, streamsize): >> char * */
IOL_REAL_DECL(void, _ZSt17__istream_extractRSiPcl, (void *, char *, long));
void _ZSt17__istream_extractRSiPcl(void *s, char *a, long n)
{
	IOL_RESOLVE(_ZSt17__istream_extractRSiPcl);
	if (IOL_LIKELY(!iol_span_on())) {
		real__ZSt17__istream_extractRSiPcl(s, a, n);
		return;
	}
	iol_tick t1 = iol_now();
	if (!on_file(s)) {
		real__ZSt17__istream_extractRSiPcl(s, a, n);
		return;
	}
	iol_tick io1 = iol_fn_io_mark();
	real__ZSt17__istream_extractRSiPcl(s, a, n);
	iol_span_end(t1, io1);
}

/* std::filebuf (basic_filebuf<char>): always a file */
WRAP(void *, _ZNSt13basic_filebufIcSt11char_traitsIcEE4openEPKcSt13_Ios_Openmode, 1,
     (void *s, const char *a, int m), (s, a, m))
WRAP(void *, _ZNSt13basic_filebufIcSt11char_traitsIcEE4openERKNSt7__cxx1112basic_stringIcS1_SaIcEEESt13_Ios_Openmode, 1,
     (void *s, const void *a, int m), (s, a, m))
WRAP(void *, _ZNSt13basic_filebufIcSt11char_traitsIcEE4openERKSsSt13_Ios_Openmode, 1,
     (void *s, const void *a, int m), (s, a, m))
WRAP(void *, _ZNSt13basic_filebufIcSt11char_traitsIcEE5closeEv, 1, (void *s), (s))
