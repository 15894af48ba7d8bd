#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safeopen.h"

/* Writes s as a JSON string; interface names and paths are the only strings. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

static void json_dir(FILE *out, const struct le_dir_report *r)
{
    const struct le_dir_cfg *c = r->cfg;
    const struct le_counters *n = r->count;
    const struct le_fwd_counters *f = r->fwd;
    uint64_t dropped = n->drop_queue + n->drop_loss + n->drop_cell_loss + n->drop_bit_error +
                       n->drop_oversize + n->drop_nomem;
    fprintf(out,
            "{\"rate_bps\":%.17g,\"delay_ns\":%lld,\"jitter_ns\":%lld,\"reorder\":%s,"
            "\"loss_pct\":%.17g,\"cell_loss_ratio\":%.17g,\"bit_error_ratio\":%.17g,"
            "\"queue_packets\":%llu,\"queue_bytes\":%llu,"
            "\"rx_packets\":%llu,\"rx_bytes\":%llu,\"tx_packets\":%llu,\"tx_bytes\":%llu,"
            "\"queued_packets\":%llu,\"queued_bytes\":%llu,\"queue_max_packets\":%llu,"
            "\"dropped_packets\":%llu,\"drop_queue\":%llu,\"drop_loss\":%llu,\"drop_cell_loss\":%llu,"
            "\"drop_bit_error\":%llu,\"drop_oversize\":%llu,\"drop_nomem\":%llu,"
            "\"pending_packets\":%llu,\"socket_drops\":%llu,\"send_errors\":%llu,\"gso_frames\":%llu,"
            "\"late_max_ns\":%llu,\"late_mean_ns\":%.1f,\"tx_stamps\":%llu,\"tx_lead_ns\":%lld,"
            "\"realtime_switches\":%llu,\"timed_frames\":%llu,\"timed_late_mean_ns\":%.1f,"
            "\"timed_late_max_ns\":%lld}",
            c->rate_bps, (long long)c->delay_ns, (long long)c->jitter_ns, c->reorder ? "true" : "false",
            c->loss_pct, c->cell_loss_ratio, c->bit_error_ratio, (unsigned long long)c->queue_packets,
            (unsigned long long)c->queue_bytes, (unsigned long long)n->rx_packets,
            (unsigned long long)n->rx_bytes, (unsigned long long)n->tx_packets,
            (unsigned long long)n->tx_bytes, (unsigned long long)n->queued_packets,
            (unsigned long long)n->queued_bytes, (unsigned long long)n->queue_max_packets,
            (unsigned long long)dropped, (unsigned long long)n->drop_queue,
            (unsigned long long)n->drop_loss, (unsigned long long)n->drop_cell_loss,
            (unsigned long long)n->drop_bit_error, (unsigned long long)n->drop_oversize,
            (unsigned long long)n->drop_nomem, (unsigned long long)f->pending_packets,
            (unsigned long long)f->socket_drops, (unsigned long long)f->send_errors,
            (unsigned long long)f->gso_frames,
            (unsigned long long)f->late_max_ns,
            n->tx_packets ? (double)f->late_sum_ns / (double)n->tx_packets : 0.0,
            (unsigned long long)f->tx_stamps, (long long)f->tx_lead_ns,
            (unsigned long long)f->realtime_switches, (unsigned long long)f->timed_frames,
            f->timed_frames ? (double)f->timed_late_sum_ns / (double)f->timed_frames : 0.0,
            (long long)f->timed_late_max_ns);
}

/* What each host's interface counted on the shared medium (and the background station's), and
 * collisions per frame the hosts sent. */
static void json_medium(FILE *out, const struct le_medium *m)
{
    static const char *const prefixes[LE_STATIONS] = {"medium_a", "medium_b", "medium_bg"};
    for (int i = 0; i < m->nst; i++) {
        const struct le_station_counters *c = &m->st[i].count;
        const char *p = prefixes[i];
        fprintf(out, ",\"%s_offered\":%llu,\"%s_tx_frames\":%llu,\"%s_collisions\":%llu,"
                "\"%s_deferrals\":%llu,\"%s_excessive\":%llu,\"%s_drop_queue\":%llu,"
                "\"%s_queue_max_packets\":%llu",
                p, (unsigned long long)c->offered, p, (unsigned long long)c->tx_frames, p,
                (unsigned long long)c->collisions, p, (unsigned long long)c->deferrals, p,
                (unsigned long long)c->excessive, p, (unsigned long long)c->drop_queue, p,
                (unsigned long long)c->queue_max_packets);
    }
    fprintf(out, ",\"medium_collision_pct\":%.17g", le_medium_collision_pct(m));
}

void le_write_json(FILE *out, const struct le_opts *opts, double duration_s,
                   const struct le_dir_report *forward, const struct le_dir_report *reverse,
                   const struct le_medium *medium, uint64_t snapshot)
{
    fputs("{\"tool\":\"linkemu\",\"if_a\":", out);
    json_string(out, opts->if_a);
    fputs(",\"if_b\":", out);
    json_string(out, opts->if_b);
    fprintf(out, ",\"framing\":\"%s\",\"mtu\":%u,\"seed\":%llu,\"frame_times\":%s,\"duration_s\":%.6f,"
            "\"final\":%s,\"snapshot\":%llu,\"medium\":\"%s\"", le_framing_name(opts->framing), opts->mtu,
            (unsigned long long)opts->seed, opts->frame_times ? "true" : "false", duration_s,
            snapshot ? "false" : "true", (unsigned long long)snapshot, medium ? "shared" : "duplex");
    if (medium)
        json_medium(out, medium);
    fputs(",\"forward\":", out);
    json_dir(out, forward);
    fputs(",\"reverse\":", out);
    json_dir(out, reverse);
    fputs("}\n", out);
}

int le_write_atomic(const char *path, const char *text, FILE *err)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        fprintf(err, "linkemu: out of memory writing %s\n", path);
        return -1;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int fd = nr_open_write(tmp);
    if (fd < 0) {
        fprintf(err, "linkemu: cannot create %s: %s; check that its folder exists and is writable\n",
                tmp, nr_open_write_error(fd));
        free(tmp);
        return -1;
    }
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            fprintf(err, "linkemu: cannot write %s: %s\n", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return -1;
        }
        done += (size_t)w;
    }
    int synced = fsync(fd);
    if (close(fd) < 0 || synced < 0) {
        fprintf(err, "linkemu: cannot flush %s: %s\n", tmp, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    if (rename(tmp, path) < 0) {
        fprintf(err, "linkemu: cannot rename %s to %s: %s\n", tmp, path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}
