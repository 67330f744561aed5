/* Stochastic wildfire spread on a heterogeneous fuel landscape, row-block
 * decomposed over MPI ranks with halo exchange.  The burn state is written
 * every few steps as a frame of one shared file through a subarray file
 * view and MPI_File_write_all; each rank logs per-step front statistics
 * into an interleaved record file with independent MPI_File_write_at; the
 * final fire arrival-time map is written collectively, re-read with a
 * column-block decomposition (a different view), and per-column burn
 * statistics go to a text report via MPI_File_write_ordered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <mpi.h>

#define NX          640
#define NY          640
#define N_STEPS     560
#define FRAME_EVERY 10
#define HEADER_B    256
#define UNBURNT 0
#define BURNING 1
#define BURNT   2

typedef struct {
    int rank, size;
    int row0, nrows;          /* owned global rows [row0, row0+nrows) */
    int up, down;             /* neighbour ranks or MPI_PROC_NULL */
} decomp_t;

typedef struct {
    uint8_t *state, *next;    /* (nrows+2) x NX with halo rows */
    float *fuel, *moisture;   /* nrows x NX */
    float *arrival;           /* nrows x NX, -1 = never burnt */
    int *burn_left;
} fire_t;

typedef struct {
    int32_t step, rank;
    int32_t burning, newly_ignited;
    double burnt_area_frac, front_row_max, mean_fuel_burning;
} step_stats_t;

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ c * 0xC2B2AE3Du;
    h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12; h *= 0x297A2D39u; h ^= h >> 15;
    return h;
}
static double urand3(uint32_t a, uint32_t b, uint32_t c) { return hash3(a, b, c) / 4294967296.0; }

static void decompose(decomp_t *d)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->size);
    int base = NY / d->size, rem = NY % d->size;
    d->nrows = base + (d->rank < rem);
    d->row0 = d->rank * base + (d->rank < rem ? d->rank : rem);
    d->up = d->rank > 0 ? d->rank - 1 : MPI_PROC_NULL;
    d->down = d->rank < d->size - 1 ? d->rank + 1 : MPI_PROC_NULL;
}

/* smooth fuel field from a few octaves of value noise, plus moisture ridge */
static void init_landscape(const decomp_t *d, fire_t *f)
{
    size_t n = (size_t)d->nrows * NX;
    f->state = calloc((size_t)(d->nrows + 2) * NX, 1);
    f->next = calloc((size_t)(d->nrows + 2) * NX, 1);
    f->fuel = malloc(n * sizeof(float));
    f->moisture = malloc(n * sizeof(float));
    f->arrival = malloc(n * sizeof(float));
    f->burn_left = calloc(n, sizeof(int));
    for (int j = 0; j < d->nrows; j++)
        for (int i = 0; i < NX; i++) {
            int gj = d->row0 + j;
            double v = 0, amp = 1, norm = 0;
            for (int oct = 0; oct < 5; oct++) {
                int cell = 64 >> oct;
                int ci = i / cell, cj = gj / cell;
                double fx = (double)(i % cell) / cell, fy = (double)(gj % cell) / cell;
                double a = urand3(ci, cj, oct), b = urand3(ci + 1, cj, oct);
                double c = urand3(ci, cj + 1, oct), e = urand3(ci + 1, cj + 1, oct);
                double sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
                v += amp * ((a * (1 - sx) + b * sx) * (1 - sy) + (c * (1 - sx) + e * sx) * sy);
                norm += amp; amp *= 0.5;
            }
            size_t k = (size_t)j * NX + i;
            f->fuel[k] = (float)(v / norm);
            f->moisture[k] = (float)(0.15 + 0.25 * exp(-pow((i - 0.6 * NX) / 40.0, 2)));
            f->arrival[k] = -1.0f;
            /* ignition line near the southern edge */
            if (gj >= NY - 12 && gj < NY - 8 && i > NX / 3 && i < 2 * NX / 3) {
                f->state[(size_t)(j + 1) * NX + i] = BURNING;
                f->burn_left[k] = 3;
                f->arrival[k] = 0.0f;
            }
        }
}

static void exchange_halos(const decomp_t *d, uint8_t *s)
{
    MPI_Sendrecv(s + NX, NX, MPI_UNSIGNED_CHAR, d->up, 1,
                 s + (size_t)(d->nrows + 1) * NX, NX, MPI_UNSIGNED_CHAR, d->down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(s + (size_t)d->nrows * NX, NX, MPI_UNSIGNED_CHAR, d->down, 2,
                 s, NX, MPI_UNSIGNED_CHAR, d->up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* one spread step with wind from the south-west; returns local stats */
static step_stats_t fire_step(const decomp_t *d, fire_t *f, int step)
{
    static const int di[8] = { -1, 0, 1, -1, 1, -1, 0, 1 };
    static const int dj[8] = { -1, -1, -1, 0, 0, 1, 1, 1 };
    static const double wind[8] = { 0.6, 0.9, 1.2, 0.7, 1.3, 1.0, 1.6, 1.9 }; /* fire from below spreads north */
    step_stats_t st = { step, d->rank, 0, 0, 0, -1, 0 };
    long burnt = 0;
    double fuel_b = 0;
    memcpy(f->next + NX, f->state + NX, (size_t)d->nrows * NX);
    for (int j = 1; j <= d->nrows; j++) {
        int gj = d->row0 + j - 1;
        for (int i = 0; i < NX; i++) {
            size_t c = (size_t)j * NX + i, k = (size_t)(j - 1) * NX + i;
            uint8_t s = f->state[c];
            if (s == BURNING) {
                if (--f->burn_left[k] <= 0) f->next[c] = BURNT;
                st.burning++;
                fuel_b += f->fuel[k];
                if (st.front_row_max < 0 || NY - gj > st.front_row_max) st.front_row_max = NY - gj;
            } else if (s == UNBURNT && f->fuel[k] > 0.25f) {
                double p_not = 1.0;
                for (int q = 0; q < 8; q++) {
                    int ii = i + di[q];
                    if (ii < 0 || ii >= NX) continue;
                    if (f->state[(size_t)(j + dj[q]) * NX + ii] == BURNING) {
                        double p = 0.36 * wind[q] * f->fuel[k] * (1.0 - 2.2 * f->moisture[k]);
                        p_not *= 1.0 - (p > 0 ? p : 0);
                    }
                }
                if (p_not < 1.0 && urand3((uint32_t)gj, (uint32_t)i, (uint32_t)step) > p_not) {
                    f->next[c] = BURNING;
                    f->burn_left[k] = 2 + (int)(6 * f->fuel[k]);
                    f->arrival[k] = (float)step;
                    st.newly_ignited++;
                }
            }
            if (f->next[c] == BURNT) burnt++;
        }
    }
    uint8_t *t = f->state; f->state = f->next; f->next = t;
    st.burnt_area_frac = (double)burnt / ((double)d->nrows * NX);
    st.mean_fuel_burning = st.burning ? fuel_b / st.burning : 0;
    return st;
}

static MPI_Datatype row_block_view(const decomp_t *d, MPI_Datatype elem)
{
    int sizes[2] = { NY, NX }, subs[2] = { d->nrows, NX }, starts[2] = { d->row0, 0 };
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, elem, &t);
    MPI_Type_commit(&t);
    return t;
}

static void write_header(MPI_File fh, const decomp_t *d, int nframes)
{
    if (d->rank == 0) {
        char hdr[HEADER_B];
        memset(hdr, 0, sizeof hdr);
        snprintf(hdr, sizeof hdr, "WILDFIRE-FRAMES nx=%d ny=%d frames=%d every=%d dtype=u8\n", NX, NY, nframes, FRAME_EVERY);
        MPI_File_write_at(fh, 0, hdr, HEADER_B, MPI_BYTE, MPI_STATUS_IGNORE);
    }
}

static void write_frame(MPI_File fh, MPI_Datatype view, const fire_t *f, const decomp_t *d, int frame)
{
    MPI_Offset disp = HEADER_B + (MPI_Offset)frame * NX * NY;
    MPI_File_set_view(fh, disp, MPI_UNSIGNED_CHAR, view, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, f->state + NX, d->nrows * NX, MPI_UNSIGNED_CHAR, MPI_STATUS_IGNORE);
}

static void log_stats(MPI_File fh, const decomp_t *d, const step_stats_t *st)
{
    /* record slot (step, rank): ranks interleave in the file */
    MPI_Offset off = ((MPI_Offset)(st->step - 1) * d->size + d->rank) * (MPI_Offset)sizeof(step_stats_t);
    MPI_File_write_at(fh, off, st, (int)sizeof(step_stats_t), MPI_BYTE, MPI_STATUS_IGNORE);
}

static void write_arrival(const char *path, const decomp_t *d, const fire_t *f)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, 0);
    MPI_Offset off = (MPI_Offset)d->row0 * NX * sizeof(float);
    MPI_File_write_at_all(fh, off, f->arrival, d->nrows * NX, MPI_FLOAT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
}

/* re-read the arrival map as column blocks and summarise each column */
static void analyze_columns(const char *path, const char *report, const decomp_t *d)
{
    int base = NX / d->size, rem = NX % d->size;
    int ncols = base + (d->rank < rem), col0 = d->rank * base + (d->rank < rem ? d->rank : rem);
    int sizes[2] = { NY, NX }, subs[2] = { NY, ncols }, starts[2] = { 0, col0 };
    MPI_Datatype colv;
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_FLOAT, &colv);
    MPI_Type_commit(&colv);
    float *blk = malloc(sizeof(float) * (size_t)NY * ncols);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_FLOAT, colv, "native", MPI_INFO_NULL);
    MPI_File_read_all(fh, blk, NY * ncols, MPI_FLOAT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);

    size_t cap = (size_t)ncols * 96 + 1;
    char *txt = malloc(cap);
    size_t len = 0;
    for (int c = 0; c < ncols; c++) {
        int burnt = 0, first = -1;
        double tsum = 0, tmax = 0;
        for (int r = NY - 1; r >= 0; r--) {
            float a = blk[(size_t)r * ncols + c];
            if (a < 0) continue;
            burnt++; tsum += a;
            if (a > tmax) tmax = a;
            first = r;
        }
        len += (size_t)snprintf(txt + len, cap - len, "col %4d burnt %4d northmost_row %4d mean_arrival %8.2f last %6.0f\n",
                                col0 + c, burnt, first, burnt ? tsum / burnt : -1.0, tmax);
    }
    MPI_File_open(MPI_COMM_WORLD, report, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, 0);
    MPI_File_write_ordered(fh, txt, (int)len, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    free(txt); free(blk);
    MPI_Type_free(&colv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 1); }
    decomp_t d;
    decompose(&d);
    fire_t f;
    init_landscape(&d, &f);
    char frames_p[600], stats_p[600], arr_p[600], rep_p[600];
    snprintf(frames_p, sizeof frames_p, "%s/fire_frames.u8", argv[1]);
    snprintf(stats_p, sizeof stats_p, "%s/front_stats.bin", argv[1]);
    snprintf(arr_p, sizeof arr_p, "%s/arrival_time.f32", argv[1]);
    snprintf(rep_p, sizeof rep_p, "%s/column_report.txt", argv[1]);

    MPI_File ff, fs;
    MPI_File_open(MPI_COMM_WORLD, frames_p, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &ff);
    MPI_File_set_size(ff, 0);
    MPI_File_open(MPI_COMM_WORLD, stats_p, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fs);
    MPI_File_set_size(fs, 0);
    MPI_Datatype view = row_block_view(&d, MPI_UNSIGNED_CHAR);
    int nframes = N_STEPS / FRAME_EVERY;
    write_header(ff, &d, nframes);
    long total_ignited = 0;
    for (int step = 1; step <= N_STEPS; step++) {
        exchange_halos(&d, f.state);
        step_stats_t st = fire_step(&d, &f, step);
        total_ignited += st.newly_ignited;
        log_stats(fs, &d, &st);
        if (step % FRAME_EVERY == 0) write_frame(ff, view, &f, &d, step / FRAME_EVERY - 1);
    }
    MPI_File_close(&ff);
    MPI_File_close(&fs);
    MPI_Type_free(&view);

    write_arrival(arr_p, &d, &f);
    analyze_columns(arr_p, rep_p, &d);
    long all = 0;
    MPI_Reduce(&total_ignited, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (d.rank == 0) printf("ranks=%d frames=%d cells_ignited=%ld (%.1f%%)\n", d.size, nframes, all, 100.0 * all / ((double)NX * NY));
    free(f.state); free(f.next); free(f.fuel); free(f.moisture); free(f.arrival); free(f.burn_left);
    MPI_Finalize();
    return 0;
}
