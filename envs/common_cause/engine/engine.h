/* Common Cause's training hot path in C: the rules (rules.py), one seat's observation
 * (observer.py) and the sheet's baseline with its default options (baseline.py).
 *
 * A second implementation of those three Python modules, which stay the reference: every
 * table (action ids, open starts, completions, lay-offs, swaps, observation offsets) comes
 * from the Python modules through cc_tables (__init__.py fills it), and
 * tests/games/common_cause/test_engine_differential.py plays thousands of games through both and demands
 * the same legal moves, observations, baseline moves and results at every step. Supported:
 * every level and variant but early_loss (__init__.py keeps such games in Python). */
#ifndef CC_ENGINE_H
#define CC_ENGINE_H

#include <stdint.h>

#define CC_N_STANDARD 52
#define CC_JOKER 52
#define CC_N_PHYSICAL 54
#define CC_N_STARTS 178
#define CC_MAX_ACTIONS 4445
#define CC_MAX_STOCK 33
#define CC_MAX_LOG 128
#define CC_MAX_MELDS 20
#define CC_MAX_LEGAL 1024
#define CC_HIGH_ACE 14

enum { CC_DRAW, CC_DISCARD, CC_START, CC_COMPLETE, CC_LAYOFF, CC_SWAP };
enum { CC_DRAW_PHASE, CC_PLACE_PHASE };
enum { CC_PLAYING, CC_WIN, CC_LOSS };
enum { CC_PAIR, CC_NEIGHBOURS, CC_GAP };

/* The action and start tables of actions.py, and the observation's field offsets. */
typedef struct {
    int16_t kind[CC_MAX_ACTIONS], card[CC_MAX_ACTIONS], origin[CC_MAX_ACTIONS];
    int16_t stands_for[CC_MAX_ACTIONS], position[CC_MAX_ACTIONS];
    int16_t start_a[CC_N_STARTS], start_b[CC_N_STARTS], start_kind[CC_N_STARTS];
    int16_t start_suit[CC_N_STARTS], start_rank[CC_N_STARTS];
    int16_t start_lo[CC_N_STARTS], start_hi[CC_N_STARTS];
    /* COMPLETIONS[sid]: up to 6 (action id, card type, position) */
    int16_t completion_n[CC_N_STARTS];
    int16_t completion_aid[CC_N_STARTS][6], completion_card[CC_N_STARTS][6];
    int16_t completion_pos[CC_N_STARTS][6];
    int16_t start_lookup[CC_N_STANDARD * CC_N_STANDARD]; /* start id of two cards, or -1 */
    int16_t layoff_real[CC_N_STARTS][CC_N_STANDARD];      /* LAYOFFS[sid][(c, -1)] or -1 */
    int16_t layoff_joker[CC_N_STARTS][CC_N_STANDARD + 1]; /* [(JOKER, c)], index 52: -1 */
    int16_t swap[CC_N_STARTS][CC_N_STANDARD];             /* SWAPS[sid][c] or -1 */
    double kind_bonus[CC_N_STARTS];                       /* the baseline's start tie-break */
    int16_t discard_base, start_base, complete_base;
    /* observer.py's OFFSET, in FIELDS order, and its size */
    int32_t off_hand, off_partner_hand, off_my_starts, off_partner_starts;
    int32_t off_completes_mine, off_completes_partner, off_meld_cards, off_stand_ins;
    int32_t off_layoff_cards, off_table_jokers, off_mine, off_theirs, off_turned, off_taken;
    int32_t off_in_pile, off_order, off_top, off_recent, off_pending, off_scalars, obs_size;
    int32_t recent, recent_width;
} cc_tables;

typedef struct {
    int16_t origin;
    int8_t is_set, rank, suit, lo, n, jokers;
    int8_t cards[15];
} cc_meld;

/* rules.py's GameState, in fixed arrays (every list keeps Python's order). */
typedef struct {
    int8_t stock_size, maxpos, max_open_starts, open_hands, signal_rule, ace_low;
    int8_t hand[2][CC_N_PHYSICAL], hand_n[2];
    int8_t stock[CC_MAX_STOCK], stock_n; /* the top is last */
    int8_t aside[CC_MAX_STOCK], aside_n;
    int8_t pile[CC_N_PHYSICAL], pile_n;   /* the discard pile, top last */
    int16_t pile_entry[CC_N_PHYSICAL];    /* log index of each pile card */
    int8_t log_card[CC_MAX_LOG], log_who[CC_MAX_LOG], log_taken[CC_MAX_LOG];
    int16_t log_n;
    int16_t taken[CC_MAX_LOG], taken_n;   /* log indices taken back, in order */
    uint8_t public_jokers;                /* bit 0: joker 52, bit 1: joker 53 */
    int16_t starts[2][3];
    int8_t starts_n[2];
    int16_t start_order[6];
    int8_t start_order_n;
    cc_meld melds[CC_MAX_MELDS];
    int8_t melds_n;
    int8_t meld_index[CC_N_STARTS];       /* meld of each origin, or -1 */
    uint64_t table_cards;                 /* real cards on the table, one bit each */
    int8_t current, phase, pending, result;
    int16_t turns, pickups, placements;
    int16_t legal[CC_MAX_LEGAL], legal_n;
    int8_t legal_valid;
} cc_state;

void cc_init(cc_state *s, const cc_tables *t, const int8_t *deck, int stock_size,
             int ace_low, int max_open_starts, int open_hands, int signal_rule);
/* The legal moves, ascending (cached until the next move); returns their count. */
int cc_legal(cc_state *s, const cc_tables *t);
/* Plays a move without checking it (the caller checks it against cc_legal). */
void cc_apply(cc_state *s, const cc_tables *t, int action);
/* The observation of `seat` into out[obs_size] (every entry written). */
void cc_encode(const cc_state *s, const cc_tables *t, int seat, float *out);
/* What `seat` does not see (observer.py's encode_hidden) into out[3 * 54]. */
void cc_encode_hidden(const cc_state *s, int seat, float *out);
/* The baseline's move (default options) for the seat to move, from that seat's view. */
int cc_baseline(cc_state *s, const cc_tables *t);

#endif
