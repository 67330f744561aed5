/* Serial HDF5 compound table: a stochastic particle-collision model emits
 * event records in batches; each batch is appended to an extendible chunked
 * 1-D dataset of a compound type (H5Dset_extent + hyperslab H5Dwrite). The
 * file is reopened and selected fields are read back through partial
 * compound memory types and checked against running totals. */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBATCH 180
#define BATCH 1800
#define CHUNK 2048
#define READ_WIN 25000

typedef struct {
    int64_t id;
    double t;
    double x, y, z;
    float energy;
    int32_t flag;
    char tag[8];
} event_t;

typedef struct { int64_t id; float energy; } id_energy_t;
typedef struct { double x, y, z; } pos_t;

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static double urand(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static hid_t make_file_type(void)
{
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 8);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(event_t));
    H5Tinsert(t, "id", HOFFSET(event_t, id), H5T_NATIVE_INT64);
    H5Tinsert(t, "t", HOFFSET(event_t, t), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "x", HOFFSET(event_t, x), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "y", HOFFSET(event_t, y), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "z", HOFFSET(event_t, z), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "energy", HOFFSET(event_t, energy), H5T_NATIVE_FLOAT);
    H5Tinsert(t, "flag", HOFFSET(event_t, flag), H5T_NATIVE_INT32);
    H5Tinsert(t, "tag", HOFFSET(event_t, tag), str);
    H5Tclose(str);
    return t;
}

/* advance a small particle cloud and record collision-like events */
static void simulate_batch(event_t *ev, int64_t first_id, double *clock, double *esum, double *zsum)
{
    static const char *tags[4] = { "elastic", "inelast", "capture", "escape" };
    for (int i = 0; i < BATCH; i++) {
        double dt = -log(urand() + 1e-300) * 1e-3;
        *clock += dt;
        double r = 0.0, ux = 0, uy = 0, uz = 0;
        for (int k = 0; k < 24; k++) {          /* random walk to the event point */
            double ct = 2 * urand() - 1, ph = 2 * M_PI * urand(), st = sqrt(1 - ct * ct);
            double step = -log(urand() + 1e-300);
            ux += step * st * cos(ph); uy += step * st * sin(ph); uz += step * ct;
        }
        r = sqrt(ux * ux + uy * uy + uz * uz);
        event_t *e = &ev[i];
        e->id = first_id + i;
        e->t = *clock;
        e->x = ux; e->y = uy; e->z = uz;
        e->energy = (float)(14.1 * exp(-0.05 * r) * (0.5 + urand()));
        e->flag = (int32_t)(urand() * 4);
        memset(e->tag, 0, sizeof e->tag);
        memcpy(e->tag, tags[e->flag], 7);
        *esum += e->energy;
        *zsum += e->z;
    }
}

static void write_table(const char *path, double *esum, double *zsum, int64_t *flag_count)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t ftype = make_file_type();
    hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = CHUNK;
    hid_t space = H5Screate_simple(1, &dims, &maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t dset = H5Dcreate2(file, "events", ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sclose(space);
    event_t *buf = malloc(sizeof(event_t) * BATCH);
    double clock = 0.0;
    for (int b = 0; b < NBATCH; b++) {
        simulate_batch(buf, (int64_t)b * BATCH, &clock, esum, zsum);
        for (int i = 0; i < BATCH; i++) flag_count[buf[i].flag]++;
        hsize_t newsize = (hsize_t)(b + 1) * BATCH, start = (hsize_t)b * BATCH, count = BATCH;
        H5Dset_extent(dset, &newsize);
        hid_t fspace = H5Dget_space(dset);
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL);
        hid_t mspace = H5Screate_simple(1, &count, NULL);
        if (H5Dwrite(dset, ftype, mspace, fspace, H5P_DEFAULT, buf) < 0) { fprintf(stderr, "H5Dwrite failed\n"); exit(1); }
        H5Sclose(mspace); H5Sclose(fspace);
    }
    free(buf);
    H5Dclose(dset); H5Pclose(dcpl); H5Tclose(ftype); H5Fclose(file);
}

static int read_selected_fields(const char *path, double esum, double zsum, const int64_t *flag_count)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dset = H5Dopen2(file, "events", H5P_DEFAULT);
    hid_t fspace = H5Dget_space(dset);
    hsize_t n;
    H5Sget_simple_extent_dims(fspace, &n, NULL);
    int bad = n != (hsize_t)NBATCH * BATCH;

    hid_t idE = H5Tcreate(H5T_COMPOUND, sizeof(id_energy_t));
    H5Tinsert(idE, "id", HOFFSET(id_energy_t, id), H5T_NATIVE_INT64);
    H5Tinsert(idE, "energy", HOFFSET(id_energy_t, energy), H5T_NATIVE_FLOAT);
    hid_t posT = H5Tcreate(H5T_COMPOUND, sizeof(pos_t));
    H5Tinsert(posT, "z", HOFFSET(pos_t, z), H5T_NATIVE_DOUBLE);
    H5Tinsert(posT, "x", HOFFSET(pos_t, x), H5T_NATIVE_DOUBLE);
    H5Tinsert(posT, "y", HOFFSET(pos_t, y), H5T_NATIVE_DOUBLE);
    hid_t flagT = H5Tcreate(H5T_COMPOUND, sizeof(int32_t));
    H5Tinsert(flagT, "flag", 0, H5T_NATIVE_INT32);

    id_energy_t *ie = malloc(sizeof(id_energy_t) * READ_WIN);
    pos_t *pos = malloc(sizeof(pos_t) * READ_WIN);
    int32_t *flags = malloc(sizeof(int32_t) * READ_WIN);
    double e = 0.0, z = 0.0;
    int64_t fc[4] = { 0, 0, 0, 0 };
    for (hsize_t start = 0; start < n; start += READ_WIN) {
        hsize_t count = n - start < READ_WIN ? n - start : READ_WIN;
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL);
        hid_t mspace = H5Screate_simple(1, &count, NULL);
        H5Dread(dset, idE, mspace, fspace, H5P_DEFAULT, ie);
        H5Dread(dset, posT, mspace, fspace, H5P_DEFAULT, pos);
        H5Dread(dset, flagT, mspace, fspace, H5P_DEFAULT, flags);
        H5Sclose(mspace);
        for (hsize_t i = 0; i < count; i++) {
            if (ie[i].id != (int64_t)(start + i)) bad++;
            e += ie[i].energy;
            z += pos[i].z;
            if (flags[i] < 0 || flags[i] > 3) bad++; else fc[flags[i]]++;
        }
    }
    if (e != esum || z != zsum) bad++;
    for (int k = 0; k < 4; k++) if (fc[k] != flag_count[k]) bad++;
    printf("events %llu, energy sum %.6e, mean z %.6f, flags %lld %lld %lld %lld\n",
           (unsigned long long)n, e, z / (double)n, (long long)fc[0], (long long)fc[1],
           (long long)fc[2], (long long)fc[3]);
    free(ie); free(pos); free(flags);
    H5Tclose(idE); H5Tclose(posT); H5Tclose(flagT);
    H5Sclose(fspace); H5Dclose(dset); H5Fclose(file);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    char path[512];
    snprintf(path, sizeof path, "%s/events.h5", argv[1]);
    double esum = 0.0, zsum = 0.0;
    int64_t flag_count[4] = { 0, 0, 0, 0 };
    write_table(path, &esum, &zsum, flag_count);
    int bad = read_selected_fields(path, esum, zsum, flag_count);
    if (bad) fprintf(stderr, "%d mismatches\n", bad);
    return bad ? 1 : 0;
}
