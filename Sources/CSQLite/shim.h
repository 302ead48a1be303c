#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic, which Swift cannot call. Turning off memory statistics removes a
// global mutex that every allocation inside SQLite takes, shared by all connections.
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

// towlower_l and towupper_l (wctype.h, which Swift's Glibc module leaves out) for the SQL case
// functions: the C library's case tables in a locale of their own, not the process's.
#include <locale.h>
#include <wctype.h>
static inline uint32_t csqlite_simple_case(uint32_t character, int lower, locale_t locale) {
    return lower ? (uint32_t)towlower_l((wint_t)character, locale) : (uint32_t)towupper_l((wint_t)character, locale);
}
