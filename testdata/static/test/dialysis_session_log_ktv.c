/*
 * Haemodialysis unit adequacy audit.  Part one simulates twelve weeks of
 * treatments on eight machines (three shifts, six days a week, 48 patients on
 * MWF/TTS schedules): single-pool variable-volume urea kinetics with
 * Michaels dialyser clearance, ultrafiltration with plasma refill and
 * blood-pressure response, nurse interventions for intradialytic
 * hypotension, and machine alarms.  Each machine writes a daily text log
 * (status line every minute, events, blood pressures, session start/end with
 * laboratory urea).  Part two parses every log with getline/strtok, rebuilds
 * the sessions, computes spKt/V (Daugirdas II), equilibrated Kt/V and a
 * model-based Kt/V fitted by secant iteration of the kinetic model, compares
 * them with the machines' online clearance integral, fits a logistic model of
 * hypotension risk against UF rate, and writes session and patient reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NMACH 8
#define NPAT 48
#define NWEEK 12
#define NDAY (NWEEK * 7)
#define NSHIFT 3
#define STATUS_EVERY 60
#define MAXSESS 2400
#define NALARM 6

static const char *alarm_names[NALARM] = {"VP_HIGH", "AP_LOW", "TMP_HIGH", "AIR_DETECT", "BLOOD_LEAK", "COND_DEV"};

typedef struct {
    char id[8];
    double weight, vfrac, gen, koa, qb, prr, sys0;
    int sched, shift;          /* sched 0 = Mon/Wed/Fri, 1 = Tue/Thu/Sat */
    double urea;               /* post-rebound urea after the last session */
    int last_day;
} patient_t;

typedef struct {
    char sid[12], pid[8];
    int machine, day;
    double wpre, wpost, upre, upost, minutes, uf_l, qb_sum, ocm_ktv;
    int nstatus, alarms[NALARM], idh, saline;
    double sys_min, sys_first;
    double sp_ktv, e_ktv, ukm_ktv, ufr_mlkgh;
} session_t;

static patient_t pat[NPAT];
static session_t sess[MAXSESS];
static int nsess;
static uint64_t rs = 0x3C6EF372FE94F82Bull;

static double urand(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static double nrand(void) { return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand()); }

static void date_of(int day, char *buf, size_t n)
{
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int m = 2, d = 4 + day;                 /* 2024-03-04 is a Monday */
    while (d > mdays[m]) { d -= mdays[m]; m++; }
    snprintf(buf, n, "2024-%02d-%02d", m + 1, d);
}

static void init_patients(void)
{
    for (int p = 0; p < NPAT; p++) {
        patient_t *q = &pat[p];
        snprintf(q->id, sizeof q->id, "P%04d", 101 + p);
        q->weight = 55 + 45 * urand();
        q->vfrac = 0.50 + 0.08 * urand();
        q->gen = 6.0 + 4.0 * urand();           /* mg/min urea nitrogen generation */
        q->koa = 900 + 500 * urand();
        q->qb = 250 + 50 * (int)(3 * urand());
        q->prr = 6.0 + 6.0 * urand();           /* plasma refill capacity, mL/min */
        q->sys0 = 118 + 32 * urand();
        q->sched = p % 2;
        q->shift = (p / 2) % NSHIFT;
        q->urea = 60 + 20 * urand();
        q->last_day = -2;
    }
}

static double michaels_k(double qb, double qd, double koa)
{
    double z = exp(koa / qb * (1 - qb / qd));
    return qb * (z - 1) / (z - qb / qd);
}

/* Simulates one treatment and writes its log lines; returns end time. */
static void run_session(FILE *lg, int m, int day, patient_t *p, int start_min, int serial)
{
    char date[24];
    date_of(day, date, sizeof date);
    int gap = day - p->last_day, first = p->last_day < 0;
    p->last_day = day;
    double v = p->vfrac * p->weight * 1000.0;                /* mL */
    double gain = (gap >= 3 ? 3.1 : 2.2) * (0.8 + 0.4 * urand());
    double wpre = p->weight + gain, target = gain + 0.3;
    double c = first ? p->urea : p->urea + 100.0 * p->gen * 0.85 * 1440.0 * gap / v;
    double upre = c, qd = 500.0, minutes = 240.0 + (gain > 3.0 ? 15.0 : 0.0);
    double ufr = target * 1000.0 / minutes, sys0 = p->sys0 + 8 * nrand(), sys = sys0, deficit = 0.0, bpn = 0.0, ocm = 0.0;
    int hh = start_min / 60, mm = start_min % 60, saline = 0;
    fprintf(lg, "%sT%02d:%02d:00 M%02d S%06d SESSION_START patient=%s weight_pre=%.1f target_uf=%.2f prescribed_min=%.0f dialyzer=FX%d Qb=%.0f\n",
            date, hh, mm, m, serial, p->id, wpre, target, minutes, (int)(p->koa / 10), p->qb);
    double uf_done = 0.0;
    for (int t = 0; t < (int)minutes; t++) {
        double k = michaels_k(p->qb * (1.0 - 0.05 * (t % 97 == 0)), qd, p->koa) * (1.0 - 0.0004 * t);
        double vol = v + (gain - uf_done) * 1000.0;
        c += (100.0 * p->gen - k * c) / vol;                   /* BUN mg/dL, single pool */
        uf_done += ufr / 1000.0;
        deficit = fmax(0.0, deficit + ufr - p->prr);         /* blood volume deficit, mL */
        bpn = 0.9 * bpn + 1.5 * nrand();
        sys = sys0 - 0.022 * deficit + bpn;
        ocm += k * (1.0 + 0.06 * nrand() * 0.2) / v;
        int abs_min = start_min + t;
        if (t % (STATUS_EVERY / 60) == 0)
            fprintf(lg, "%sT%02d:%02d:%02d M%02d S%06d STATUS Qb=%.0f Qd=%.0f UFR=%.0f UFV=%.3f VP=%.0f AP=%.0f TMP=%.0f Tdial=%.1f Cond=%.2f Kocm=%.1f\n",
                    date, abs_min / 60, abs_min % 60, 0, m, serial, p->qb, qd, ufr * 60.0, uf_done,
                    120 + 0.25 * p->qb + 8 * nrand(), -(80 + 0.4 * p->qb) + 8 * nrand(), 60 + ufr * 2.0 + 5 * nrand(),
                    36.5 + 0.1 * nrand(), 14.0 + 0.05 * nrand(), k * (1 + 0.03 * nrand()));
        if (t % 30 == 0)
            fprintf(lg, "%sT%02d:%02d:30 M%02d S%06d BP sys=%.0f dia=%.0f hr=%.0f\n", date, abs_min / 60, abs_min % 60, m, serial,
                    sys, sys * 0.58 + 4 * nrand(), 72 + 8 * nrand());
        if (sys < 92.0 && saline < 3) {
            saline++;
            ufr *= 0.5;
            deficit = fmax(0.0, deficit - 200.0);
            fprintf(lg, "%sT%02d:%02d:40 M%02d S%06d EVENT UF_REDUCED new_ufr=%.0f\n", date, abs_min / 60, abs_min % 60, m, serial, ufr * 60);
            fprintf(lg, "%sT%02d:%02d:45 M%02d S%06d EVENT SALINE volume=200\n", date, abs_min / 60, abs_min % 60, m, serial);
            uf_done -= 0.2;
        }
        if (urand() < 0.004) {
            int a = (int)(urand() * urand() * NALARM);
            fprintf(lg, "%sT%02d:%02d:15 M%02d S%06d ALARM code=%s value=%.0f\n", date, abs_min / 60, abs_min % 60, m, serial,
                    alarm_names[a], 200 + 100 * urand());
        }
    }
    double wpost = wpre - uf_done;
    p->urea = c + (upre - c) * 0.12;                         /* post-dialysis rebound */
    int end = start_min + (int)minutes;
    fprintf(lg, "%sT%02d:%02d:00 M%02d S%06d SESSION_END weight_post=%.2f duration_min=%.0f urea_pre=%.1f urea_post=%.1f saline=%d ocm_ktv=%.3f\n",
            date, end / 60, end % 60, m, serial, wpost, minutes, upre, c * (1.0 + 0.02 * nrand()), saline, ocm);
}

static void generate_logs(const char *dir)
{
    char path[700], mdir[640];
    int serial = 1;
    for (int m = 0; m < NMACH; m++) {
        snprintf(mdir, sizeof mdir, "%s/machine_%02d", dir, m);
        if (mkdir(mdir, 0755) != 0 && errno != EEXIST) { perror(mdir); exit(1); }
    }
    for (int day = 0; day < NDAY; day++) {
        int dow = day % 7;
        if (dow == 6) continue;                                  /* Sunday closed */
        char date[24];
        date_of(day, date, sizeof date);
        for (int m = 0; m < NMACH; m++) {
            snprintf(path, sizeof path, "%s/machine_%02d/%s.log", dir, m, date);
            FILE *lg = fopen(path, "w");
            if (!lg) { perror(path); exit(1); }
            for (int s = 0; s < NSHIFT; s++) {
                int pidx = -1;
                for (int p = 0; p < NPAT; p++)
                    if (pat[p].sched == dow % 2 && pat[p].shift == s && (p / 6) % NMACH == m) { pidx = p; break; }
                if (pidx < 0) {
                    for (int p = 0; p < NPAT; p++)
                        if (pat[p].sched == dow % 2 && pat[p].shift == s && (p * 5 + 3) % NMACH == m && pat[p].last_day != day) { pidx = p; break; }
                }
                if (pidx < 0 || pat[pidx].last_day == day) continue;
                run_session(lg, m, day, &pat[pidx], 6 * 60 + 30 + s * 300, serial++);
            }
            fclose(lg);
        }
    }
}

static session_t *find_session(const char *sid)
{
    for (int i = nsess - 1; i >= 0 && i >= nsess - 8; i--)
        if (strcmp(sess[i].sid, sid) == 0) return &sess[i];
    return NULL;
}

static double kv(const char *tok, const char *key)
{
    size_t n = strlen(key);
    return strncmp(tok, key, n) == 0 && tok[n] == '=' ? strtod(tok + n + 1, NULL) : NAN;
}

/* Parses one machine-day log with getline and strtok_r. */
static void parse_log(const char *path, int machine, int day)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    char *line = NULL, *save, *tok;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        char *ts = strtok_r(line, " \n", &save), *mach = strtok_r(NULL, " \n", &save);
        char *sid = strtok_r(NULL, " \n", &save), *kind = strtok_r(NULL, " \n", &save);
        if (!ts || !mach || !sid || !kind) continue;
        session_t *s = find_session(sid);
        if (strcmp(kind, "SESSION_START") == 0) {
            if (nsess >= MAXSESS) break;
            s = &sess[nsess++];
            memset(s, 0, sizeof *s);
            snprintf(s->sid, sizeof s->sid, "%s", sid);
            s->machine = machine; s->day = day; s->sys_min = 1e9; s->sys_first = -1;
            while ((tok = strtok_r(NULL, " \n", &save)) != NULL) {
                if (strncmp(tok, "patient=", 8) == 0) snprintf(s->pid, sizeof s->pid, "%s", tok + 8);
                double v = kv(tok, "weight_pre");
                if (!isnan(v)) s->wpre = v;
            }
            continue;
        }
        if (!s) continue;
        if (strcmp(kind, "STATUS") == 0) {
            s->nstatus++;
            while ((tok = strtok_r(NULL, " \n", &save)) != NULL) {
                double v;
                if (!isnan(v = kv(tok, "Qb"))) s->qb_sum += v;
                else if (!isnan(v = kv(tok, "UFV"))) s->uf_l = v;
            }
        } else if (strcmp(kind, "BP") == 0) {
            tok = strtok_r(NULL, " \n", &save);
            double sys = tok ? kv(tok, "sys") : NAN;
            if (!isnan(sys)) {
                if (s->sys_first < 0) s->sys_first = sys;
                if (sys < s->sys_min) s->sys_min = sys;
            }
        } else if (strcmp(kind, "ALARM") == 0) {
            tok = strtok_r(NULL, " \n", &save);
            for (int a = 0; tok && a < NALARM; a++)
                if (strcmp(tok + 5, alarm_names[a]) == 0) s->alarms[a]++;
        } else if (strcmp(kind, "EVENT") == 0) {
            tok = strtok_r(NULL, " \n", &save);
            if (tok && strcmp(tok, "SALINE") == 0) s->saline++;
        } else if (strcmp(kind, "SESSION_END") == 0) {
            while ((tok = strtok_r(NULL, " \n", &save)) != NULL) {
                double v;
                if (!isnan(v = kv(tok, "weight_post"))) s->wpost = v;
                else if (!isnan(v = kv(tok, "duration_min"))) s->minutes = v;
                else if (!isnan(v = kv(tok, "urea_pre"))) s->upre = v;
                else if (!isnan(v = kv(tok, "urea_post"))) s->upost = v;
                else if (!isnan(v = kv(tok, "ocm_ktv"))) s->ocm_ktv = v;
            }
        }
    }
    free(line);
    fclose(f);
}

/* Model Kt/V: fixed-volume single-pool decay with generation, K found by
 * secant iteration to reproduce the measured post urea. */
static double ukm_ktv(const session_t *s, double v_l)
{
    double k0 = 150.0, k1 = 300.0, f0 = 0, f1 = 0;
    for (int it = 0; it < 30; it++) {
        for (int pass = 0; pass < 2; pass++) {
            double k = pass ? k1 : k0, c = s->upre, v = v_l * 1000.0 + s->uf_l * 1000.0;
            for (int t = 0; t < (int)s->minutes; t++) {
                c += (700.0 - k * c) / v;
                v -= s->uf_l * 1000.0 / s->minutes;
            }
            if (pass) f1 = c - s->upost; else f0 = c - s->upost;
        }
        if (fabs(f1) < 1e-4 || fabs(f1 - f0) < 1e-12) break;
        double k2 = k1 - f1 * (k1 - k0) / (f1 - f0);
        k0 = k1; k1 = fmin(fmax(k2, 20.0), 600.0);
    }
    return k1 * s->minutes / (v_l * 1000.0);
}

/* Logistic regression of intradialytic hypotension on UF rate (IRLS). */
static void fit_idh(double *b0, double *b1)
{
    double a = -3.0, b = 0.0;
    for (int it = 0; it < 30; it++) {
        double h00 = 0, h01 = 0, h11 = 0, g0 = 0, g1 = 0;
        for (int i = 0; i < nsess; i++) {
            double x = sess[i].ufr_mlkgh / 10.0, p = 1.0 / (1.0 + exp(-(a + b * x))), w = p * (1 - p);
            g0 += sess[i].idh - p; g1 += (sess[i].idh - p) * x;
            h00 += w; h01 += w * x; h11 += w * x * x;
        }
        double det = h00 * h11 - h01 * h01;
        if (fabs(det) < 1e-12) break;
        a += (h11 * g0 - h01 * g1) / det;
        b += (h00 * g1 - h01 * g0) / det;
    }
    *b0 = a; *b1 = b;
}

static void write_reports(const char *dir)
{
    char path[700];
    snprintf(path, sizeof path, "%s/sessions.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "session,patient,machine,day,minutes,uf_l,ufr_ml_kg_h,mean_qb,sp_ktv,e_ktv,ukm_ktv,ocm_ktv,sys_min,idh,saline,alarms\n");
    for (int i = 0; i < nsess; i++) {
        session_t *s = &sess[i];
        int na = 0;
        for (int a = 0; a < NALARM; a++) na += s->alarms[a];
        fprintf(f, "%s,%s,%d,%d,%.0f,%.2f,%.2f,%.0f,%.3f,%.3f,%.3f,%.3f,%.0f,%d,%d,%d\n", s->sid, s->pid, s->machine, s->day,
                s->minutes, s->uf_l, s->ufr_mlkgh, s->nstatus ? s->qb_sum / s->nstatus : 0.0, s->sp_ktv, s->e_ktv, s->ukm_ktv,
                s->ocm_ktv, s->sys_min, s->idh, s->saline, na);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/patient_adequacy.txt", dir);
    f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    double b0, b1;
    fit_idh(&b0, &b1);
    fprintf(f, "# IDH logistic model: logit p = %.4f + %.4f * (UFR / 10 mL/kg/h)\n", b0, b1);
    fprintf(f, "# patient sessions mean_spKtV min_spKtV below_1.2 mean_eKtV ocm_bias idh_rate\n");
    for (int p = 0; p < NPAT; p++) {
        int n = 0, low = 0, idh = 0;
        double sum = 0, mn = 9, se = 0, bias = 0;
        for (int i = 0; i < nsess; i++) {
            if (strcmp(sess[i].pid, pat[p].id) != 0) continue;
            n++; sum += sess[i].sp_ktv; se += sess[i].e_ktv; bias += sess[i].ocm_ktv - sess[i].sp_ktv;
            if (sess[i].sp_ktv < mn) mn = sess[i].sp_ktv;
            low += sess[i].sp_ktv < 1.2; idh += sess[i].idh;
        }
        if (n) fprintf(f, "%s %d %.3f %.3f %d %.3f %.3f %.3f\n", pat[p].id, n, sum / n, mn, low, se / n, bias / n, (double)idh / n);
    }
    long tot[NALARM] = {0};
    for (int i = 0; i < nsess; i++) for (int a = 0; a < NALARM; a++) tot[a] += sess[i].alarms[a];
    fprintf(f, "# alarms:");
    for (int a = 0; a < NALARM; a++) fprintf(f, " %s=%ld", alarm_names[a], tot[a]);
    fprintf(f, "\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    init_patients();
    generate_logs(argv[1]);

    char path[700], date[24];
    for (int day = 0; day < NDAY; day++) {
        if (day % 7 == 6) continue;
        date_of(day, date, sizeof date);
        for (int m = 0; m < NMACH; m++) {
            snprintf(path, sizeof path, "%s/machine_%02d/%s.log", argv[1], m, date);
            parse_log(path, m, day);
        }
    }
    for (int i = 0; i < nsess; i++) {
        session_t *s = &sess[i];
        double r = s->upost / s->upre, t_h = s->minutes / 60.0, uf = s->wpre - s->wpost;
        s->sp_ktv = -log(r - 0.008 * t_h) + (4.0 - 3.5 * r) * uf / s->wpost;
        s->e_ktv = s->sp_ktv - 0.6 * s->sp_ktv / t_h + 0.03;
        double v_l = 0.55 * s->wpost;
        s->ukm_ktv = ukm_ktv(s, v_l);
        s->ufr_mlkgh = uf * 1000.0 / s->wpost / t_h;
        s->idh = s->sys_first > 0 && (s->sys_min < 90.0 || s->sys_first - s->sys_min > 30.0);
    }
    write_reports(argv[1]);
    printf("parsed %d sessions from %d machines over %d days\n", nsess, NMACH, NDAY);
    return 0;
}
