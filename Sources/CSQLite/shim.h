#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic, which Swift cannot call. Turning off memory statistics removes a
// global mutex that every allocation inside SQLite takes, shared by all connections.
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

// The WAL-index header: the first 48 bytes of the -shm file's first region, which every commit
// (and every restart of the WAL) rewrites (https://www.sqlite.org/walformat.html). A connection
// that keeps its read transaction open compares it with the copy it took before its snapshot to
// learn whether anything committed since. NULL unless the connection has the WAL open and its
// VFS maps shared memory; the map lasts as long as the connection's WAL.
static inline const volatile uint64_t *csqlite_wal_index_header(sqlite3 *db)
{
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == NULL) return NULL;
    const sqlite3_io_methods *methods = file->pMethods;
    if (methods == NULL || methods->iVersion < 2 || methods->xShmMap == NULL) return NULL;
    void volatile *region = NULL;
    // 32 KiB: the region size SQLite's WAL maps the -shm file in; region 0 exists once the WAL is open.
    if (methods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return NULL;
    return (const volatile uint64_t *)region;
}

enum { CSQLITE_WAL_INDEX_HEADER_WORDS = 6 };

static inline void csqlite_wal_index_header_copy(const volatile uint64_t *header, uint64_t *copy)
{
    for (int i = 0; i < CSQLITE_WAL_INDEX_HEADER_WORDS; i++) copy[i] = header[i];
}

static inline int csqlite_wal_index_header_unchanged(const volatile uint64_t *header, const uint64_t *copy)
{
    uint64_t difference = 0;
    for (int i = 0; i < CSQLITE_WAL_INDEX_HEADER_WORDS; i++) difference |= header[i] ^ copy[i];
    return difference == 0;
}
