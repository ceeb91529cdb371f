/* A random druids bot for the line protocol of `druids bot --exec` (C99 +
 * POSIX getline). Plays either game: a random legal action id per decision.
 *   cc -O2 -o random_bot bots/exec/random_bot.c
 *   druids bot --game-id ID --token TOKEN --exec ./random_bot
 * Protocol: docs/bot-protocol.md. Only "type", "protocol", "version" (top
 * level) and the "id" of each legal_actions entry are needed, so instead of a
 * JSON library a small scanner walks each line, skipping strings (with their
 * escapes) and tracking nesting so that keys of nested messages never match. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Copies the JSON string at s (after its opening quote) into out, truncated
 * to n - 1 bytes; returns the position after the closing quote. */
static const char *str(const char *s, char *out, size_t n) {
  size_t k = 0;
  for (; *s && *s != '"'; s++) {
    if (*s == '\\' && s[1]) s++;
    if (k + 1 < n) out[k++] = *s;
  }
  out[k] = 0;
  return *s ? s + 1 : s;
}

int main(void) {
  char *line = NULL, *end;
  size_t cap = 0, nids = 0, idcap = 0;
  long *ids = NULL;
  srand((unsigned)time(NULL) ^ (unsigned)getpid());
  while (getline(&line, &cap, stdin) > 0) {
    char type[32] = "", key[32] = "", top[32] = "", buf[32], open[256];
    int depth = 0, want_key = 0;
    long version = -1, protocol = -1;
    nids = 0;
    for (const char *p = line; *p;) {
      char c = *p;
      if (c == '{' || c == '[') {
        if (depth < 256) open[depth] = c;
        depth++, want_key = c == '{', p++;
      } else if (c == '}' || c == ']') {
        depth--, p++;
      } else if (c == ',') {
        want_key = depth > 0 && depth <= 256 && open[depth - 1] == '{', p++;
      } else if (c == '"') {
        p = str(p + 1, buf, sizeof buf);
        if (want_key) {
          strcpy(key, buf), want_key = 0;
          if (depth == 1) strcpy(top, buf);
        } else if (depth == 1 && !strcmp(key, "type")) strcpy(type, buf);
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        long v = strtol(p, &end, 10);
        for (p = end; *p && strchr("+-.eE0123456789", *p); p++) {}
        if (depth == 1 && !strcmp(key, "version")) version = v;
        if (depth == 1 && !strcmp(key, "protocol")) protocol = v;
        if (depth == 3 && !strcmp(top, "legal_actions") && !strcmp(key, "id")) {
          if (nids == idcap && !(ids = realloc(ids, (idcap = 2 * idcap + 64) * sizeof *ids)))
            return 1;
          ids[nids++] = v;
        }
      } else p++;
    }
    if (!strcmp(type, "start") && protocol != 1) {
      fprintf(stderr, "unknown protocol %ld\n", protocol);
      return 1;
    } else if (!strcmp(type, "decision") && nids > 0) { /* echo the version */
      printf("{\"id\": %ld, \"version\": %ld}\n", ids[rand() % nids], version);
      fflush(stdout);
    } else if (!strcmp(type, "rejected") || !strcmp(type, "timed_out")) {
      fprintf(stderr, "%s at version %ld\n", type, version);
    } else if (!strcmp(type, "game_end")) {
      fprintf(stderr, "game over\n");
      break;
    }
  }
  return free(line), free(ids), 0;
}
