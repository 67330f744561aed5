/*
 * Bank transaction simulator with a write-ahead journal.
 *
 * Random deposits, withdrawals and transfers are applied to a table of
 * accounts.  Every accepted transaction is appended to a binary journal with
 * fwrite; every COMMIT_EVERY transactions the journal is made durable with
 * fflush + fsync.  A snapshot of the opening balances is written first.  The
 * replay step reads the snapshot and the journal back, validates each
 * record's sequence number and checksum, rebuilds the balances and compares
 * them with the live table.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NACCOUNTS 20000
#define NTRANS 500000
#define COMMIT_EVERY 1000
#define REPLAY_BATCH 1024

enum { TX_DEPOSIT = 1, TX_WITHDRAW = 2, TX_TRANSFER = 3 };

typedef struct {
    uint64_t seq;
    uint32_t type;
    uint32_t from;
    uint32_t to;
    uint32_t pad;
    int64_t amount_cents;
    uint64_t timestamp;
    uint32_t check;
    uint32_t pad2;
} journal_rec_t;

typedef struct {
    FILE *fp;
    uint64_t next_seq;
    long pending;
    long commits;
} journal_t;

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t rand64(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t record_checksum(const journal_rec_t *r)
{
    /* FNV-1a over the fields before the checksum */
    const uint8_t *p = (const uint8_t *)r;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < offsetof(journal_rec_t, check); i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

static int write_snapshot(const char *path, const int64_t *bal)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    uint32_t n = NACCOUNTS;
    if (fwrite(&n, sizeof n, 1, f) != 1 || fwrite(bal, sizeof(int64_t), NACCOUNTS, f) != NACCOUNTS) {
        fclose(f);
        return -1;
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) { fclose(f); return -1; }
    return fclose(f);
}

static int journal_open(journal_t *j, const char *path)
{
    j->fp = fopen(path, "wb");
    j->next_seq = 1;
    j->pending = 0;
    j->commits = 0;
    return j->fp ? 0 : -1;
}

static int journal_commit(journal_t *j)
{
    if (fflush(j->fp) != 0) return -1;
    if (fsync(fileno(j->fp)) != 0) return -1;
    j->pending = 0;
    j->commits++;
    return 0;
}

static int journal_append(journal_t *j, uint32_t type, uint32_t from, uint32_t to, int64_t amount, uint64_t ts)
{
    journal_rec_t r;
    memset(&r, 0, sizeof r);
    r.seq = j->next_seq++;
    r.type = type;
    r.from = from;
    r.to = to;
    r.amount_cents = amount;
    r.timestamp = ts;
    r.check = record_checksum(&r);
    if (fwrite(&r, sizeof r, 1, j->fp) != 1) return -1;
    if (++j->pending >= COMMIT_EVERY) return journal_commit(j);
    return 0;
}

static int journal_close(journal_t *j)
{
    int rc = journal_commit(j);
    if (fclose(j->fp) != 0) rc = -1;
    return rc;
}

/* Apply one transaction to the balance table; returns 0 if rejected. */
static int apply_transaction(int64_t *bal, uint32_t type, uint32_t from, uint32_t to, int64_t amount)
{
    switch (type) {
    case TX_DEPOSIT:
        bal[to] += amount;
        return 1;
    case TX_WITHDRAW:
        if (bal[from] < amount) return 0;
        bal[from] -= amount;
        return 1;
    case TX_TRANSFER:
        if (from == to || bal[from] < amount) return 0;
        bal[from] -= amount;
        bal[to] += amount;
        return 1;
    }
    return 0;
}

static long simulate(int64_t *bal, journal_t *j, long *rejected)
{
    uint64_t ts = 1700000000000ULL;
    long accepted = 0;
    *rejected = 0;
    for (long t = 0; t < NTRANS; t++) {
        uint64_t r = rand64();
        uint32_t type = (r % 10 < 2) ? TX_DEPOSIT : (r % 10 < 4 ? TX_WITHDRAW : TX_TRANSFER);
        uint32_t from = (uint32_t)((r >> 8) % NACCOUNTS);
        uint32_t to = (uint32_t)((r >> 32) % NACCOUNTS);
        int64_t amount = (int64_t)(rand64() % 250000) + 1;
        /* a little interest-like computation per transaction */
        for (int k = 0; k < 200; k++)
            amount = (amount * 1000003 + k) % 250007 + 1;
        ts += 1 + rand64() % 500;
        if (!apply_transaction(bal, type, from, to, amount)) {
            (*rejected)++;
            continue;
        }
        if (journal_append(j, type, from, to, amount, ts) != 0) return -1;
        accepted++;
    }
    return accepted;
}

static int replay_journal(const char *snap_path, const char *journal_path, int64_t *bal, long *nrec)
{
    FILE *s = fopen(snap_path, "rb");
    if (!s) return -1;
    uint32_t n;
    if (fread(&n, sizeof n, 1, s) != 1 || n != NACCOUNTS ||
        fread(bal, sizeof(int64_t), NACCOUNTS, s) != NACCOUNTS) {
        fclose(s);
        return -1;
    }
    fclose(s);

    FILE *f = fopen(journal_path, "rb");
    if (!f) return -1;
    journal_rec_t *batch = malloc(sizeof(journal_rec_t) * REPLAY_BATCH);
    uint64_t expect = 1;
    size_t got;
    int rc = 0;
    while (rc == 0 && (got = fread(batch, sizeof(journal_rec_t), REPLAY_BATCH, f)) > 0) {
        for (size_t i = 0; i < got; i++) {
            journal_rec_t *r = &batch[i];
            if (r->seq != expect || r->check != record_checksum(r)) {
                fprintf(stderr, "bad journal record at seq %llu\n", (unsigned long long)expect);
                rc = -1;
                break;
            }
            if (!apply_transaction(bal, r->type, r->from, r->to, r->amount_cents)) {
                fprintf(stderr, "replayed transaction %llu rejected\n", (unsigned long long)r->seq);
                rc = -1;
                break;
            }
            expect++;
        }
    }
    *nrec = (long)(expect - 1);
    free(batch);
    fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char snap[4096], jpath[4096];
    snprintf(snap, sizeof snap, "%s/balances.snap", argv[1]);
    snprintf(jpath, sizeof jpath, "%s/transactions.journal", argv[1]);

    int64_t *bal = malloc(sizeof(int64_t) * NACCOUNTS);
    int64_t *rebuilt = malloc(sizeof(int64_t) * NACCOUNTS);
    int64_t opening = 0;
    for (int a = 0; a < NACCOUNTS; a++) {
        bal[a] = (int64_t)(rand64() % 1000000) + 50000;
        opening += bal[a];
    }
    if (write_snapshot(snap, bal) != 0) { fprintf(stderr, "snapshot failed\n"); return 1; }

    journal_t j;
    if (journal_open(&j, jpath) != 0) { perror(jpath); return 1; }
    long rejected = 0;
    long accepted = simulate(bal, &j, &rejected);
    if (accepted < 0 || journal_close(&j) != 0) { fprintf(stderr, "journal write failed\n"); return 1; }

    long nrec = 0;
    if (replay_journal(snap, jpath, rebuilt, &nrec) != 0) return 1;
    long bad = 0;
    int64_t closing = 0;
    for (int a = 0; a < NACCOUNTS; a++) {
        if (rebuilt[a] != bal[a]) bad++;
        closing += bal[a];
    }
    printf("bank_journal: %ld accepted, %ld rejected, %ld commits, replayed %ld, "
           "opening %lld closing %lld, %ld mismatching accounts\n",
           accepted, rejected, j.commits, nrec, (long long)opening, (long long)closing, bad);
    return (bad == 0 && nrec == accepted) ? 0 : 1;
}
