/* Common Cause's rules, observation and baseline in C: see engine.h. Each function names
 * the Python function it follows; the Python docstrings give the rules. */
#include "engine.h"

#include <string.h>

#define BIT(c) (1ULL << (c))

static int card_at(int suit, int pos) { return suit * 13 + (pos - 1) % 13; }
static int popcount(uint64_t x) { return __builtin_popcountll(x); }

static int in_hand(const cc_state *s, int p, int card) {
    for (int i = 0; i < s->hand_n[p]; i++)
        if (s->hand[p][i] == card) return 1;
    return 0;
}

static void hand_remove(cc_state *s, int p, int card) { /* list.remove: keeps the order */
    int n = s->hand_n[p];
    for (int i = 0; i < n; i++)
        if (s->hand[p][i] == card) {
            memmove(&s->hand[p][i], &s->hand[p][i + 1], (size_t)(n - i - 1));
            s->hand_n[p] = (int8_t)(n - 1);
            return;
        }
}

static void remove16(int16_t *list, int8_t *n, int value) {
    for (int i = 0; i < *n; i++)
        if (list[i] == value) {
            memmove(&list[i], &list[i + 1], sizeof(int16_t) * (size_t)(*n - i - 1));
            (*n)--;
            return;
        }
}

/* The card types held, as bits 0-52 (bit 52: any joker). */
static uint64_t held_types(const int8_t *hand, int n) {
    uint64_t held = 0;
    for (int i = 0; i < n; i++) held |= BIT(hand[i] < CC_N_STANDARD ? hand[i] : CC_JOKER);
    return held;
}

/* The standard cards of a hand, as bits 0-51. */
static uint64_t standard_cards(const int8_t *hand, int n) {
    uint64_t out = 0;
    for (int i = 0; i < n; i++)
        if (hand[i] < CC_N_STANDARD) out |= BIT(hand[i]);
    return out;
}

static int needs_high_ace(const cc_tables *t, int sid) {
    return t->start_kind[sid] != CC_PAIR && t->start_hi[sid] == CC_HIGH_ACE;
}

/* ---- Meld: missing_suit_cards, stand_ins, open_ends, offers ---------------------------- */
static uint64_t missing_suit_cards(const cc_meld *m) {
    int present = 0;
    for (int i = 0; i < m->n; i++)
        if (m->cards[i] < CC_N_STANDARD) present |= 1 << (m->cards[i] / 13);
    uint64_t out = 0;
    for (int su = 0; su < 4; su++)
        if (!(present & (1 << su))) out |= BIT(su * 13 + m->rank);
    return out;
}

static int open_ends(const cc_meld *m, int maxpos, int *ends) {
    int lo = m->lo, hi = m->lo + m->n - 1, n = 0;
    if (lo > 1 && !(lo - 1 == 1 && hi == CC_HIGH_ACE)) ends[n++] = lo - 1;
    if (hi < maxpos && !(lo == 1 && hi + 1 == CC_HIGH_ACE)) ends[n++] = hi + 1;
    if (n == 2 && ends[0] == 1 && ends[1] == CC_HIGH_ACE) n = 1; /* the Ace goes low */
    return n;
}

/* Meld.offers: (card type, action id) of every lay-off and swap the meld takes now. */
static int meld_offers(const cc_meld *m, const cc_tables *t, int maxpos, int16_t *cards,
                       int16_t *aids) {
    int n = 0, o = m->origin;
    if (m->is_set) {
        uint64_t missing = missing_suit_cards(m);
        if (m->n < 4) {
            for (int c = 0; c < CC_N_STANDARD; c++)
                if (missing & BIT(c)) { cards[n] = (int16_t)c; aids[n++] = t->layoff_real[o][c]; }
            cards[n] = CC_JOKER;
            aids[n++] = t->layoff_joker[o][CC_N_STANDARD];
        }
        if (m->jokers)
            for (int c = 0; c < CC_N_STANDARD; c++)
                if (missing & BIT(c)) { cards[n] = (int16_t)c; aids[n++] = t->swap[o][c]; }
        return n;
    }
    int ends[2], k = open_ends(m, maxpos, ends);
    for (int i = 0; i < k; i++) {
        int c = card_at(m->suit, ends[i]);
        cards[n] = (int16_t)c;
        aids[n++] = t->layoff_real[o][c];
        cards[n] = CC_JOKER;
        aids[n++] = t->layoff_joker[o][c];
    }
    for (int i = 0; i < m->n; i++)
        if (m->cards[i] >= CC_N_STANDARD) {
            int c = card_at(m->suit, m->lo + i);
            cards[n] = (int16_t)c;
            aids[n++] = t->swap[o][c];
        }
    return n;
}

/* ---- jokers -------------------------------------------------------------------------- */
static int8_t renamed(int8_t c) {
    return c == CC_N_STANDARD ? CC_N_STANDARD + 1 : c == CC_N_STANDARD + 1 ? CC_N_STANDARD : c;
}

static void swap_joker_names(cc_state *s) { /* GameState._swap_joker_names */
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < s->hand_n[p]; i++) s->hand[p][i] = renamed(s->hand[p][i]);
    for (int i = 0; i < s->stock_n; i++) s->stock[i] = renamed(s->stock[i]);
    for (int i = 0; i < s->aside_n; i++) s->aside[i] = renamed(s->aside[i]);
    for (int i = 0; i < s->pile_n; i++) s->pile[i] = renamed(s->pile[i]);
    for (int i = 0; i < s->log_n; i++) s->log_card[i] = renamed(s->log_card[i]);
    s->pending = renamed(s->pending);
}

static int take(cc_state *s, int p, int card) { /* GameState._take */
    if (card != CC_JOKER) {
        hand_remove(s, p, card);
        return card;
    }
    int physical = -1, first = -1, known = -1;
    for (int i = 0; i < s->hand_n[p]; i++) {
        int c = s->hand[p][i];
        if (c < CC_N_STANDARD) continue;
        if (first < 0) first = c;
        if (c == s->pending) physical = c;
        if (known < 0 && (s->public_jokers & (1 << (c - CC_N_STANDARD)))) known = c;
    }
    if (physical < 0) {
        physical = known >= 0 ? known : first;
        if (!s->public_jokers && physical != CC_N_STANDARD) {
            swap_joker_names(s);
            physical = CC_N_STANDARD;
        }
    }
    hand_remove(s, p, physical);
    s->public_jokers |= (uint8_t)(1 << (physical - CC_N_STANDARD));
    return physical;
}

/* ---- set up -------------------------------------------------------------------------- */
void cc_init(cc_state *s, const cc_tables *t, const int8_t *deck, int stock_size,
             int ace_low, int max_open_starts, int open_hands, int signal_rule) {
    (void)t;
    memset(s, 0, sizeof(*s));
    s->stock_size = (int8_t)stock_size;
    s->ace_low = (int8_t)ace_low;
    s->maxpos = ace_low ? 13 : CC_HIGH_ACE;
    s->max_open_starts = (int8_t)max_open_starts;
    s->open_hands = (int8_t)open_hands;
    s->signal_rule = (int8_t)signal_rule;
    for (int i = 0; i < 10; i++) {
        s->hand[0][i] = deck[2 * i];
        s->hand[1][i] = deck[2 * i + 1];
    }
    s->hand_n[0] = s->hand_n[1] = 10;
    int aside_end = 21 + (CC_MAX_STOCK - stock_size);
    for (int i = 21; i < aside_end; i++) s->aside[s->aside_n++] = deck[i];
    for (int i = CC_N_PHYSICAL - 1; i >= aside_end; i--) s->stock[s->stock_n++] = deck[i];
    s->pile[0] = deck[20];
    s->pile_entry[0] = 0;
    s->pile_n = 1;
    s->log_card[0] = deck[20];
    s->log_who[0] = -1;
    s->log_n = 1;
    memset(s->meld_index, -1, sizeof(s->meld_index));
    s->pending = -1;
    if (deck[20] >= CC_N_STANDARD) {
        if (deck[20] != CC_N_STANDARD) swap_joker_names(s);
        s->public_jokers = 1;
    }
}

/* ---- legal moves --------------------------------------------------------------------- */
/* GameState._freeable_jokers: how many table jokers could be swapped out at once with
 * distinct spare cards. */
static int freeable_jokers(const cc_state *s, uint64_t spare) {
    uint64_t options[8];
    int n = 0;
    for (int i = 0; i < s->melds_n; i++) {
        const cc_meld *m = &s->melds[i];
        if (m->is_set) {
            uint64_t swappers = missing_suit_cards(m) & spare;
            for (int j = 0; j < m->jokers; j++)
                if (swappers) options[n++] = swappers;
        } else {
            for (int j = 0; j < m->n; j++)
                if (m->cards[j] >= CC_N_STANDARD) {
                    uint64_t o = BIT(card_at(m->suit, m->lo + j)) & spare;
                    if (o) options[n++] = o;
                }
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (popcount(options[i] | options[j]) >= 2) return 2;
    return n ? 1 : 0;
}

/* GameState._placeable: whether player p, holding `hand` plus x, can put x on the table
 * this turn. */
static int placeable(const cc_state *s, const cc_tables *t, int x, const int8_t *hand,
                     int hand_n, int p) {
    int maxpos = s->maxpos, q = 1 - p;
    if (x >= CC_N_STANDARD) {
        for (int i = 0; i < s->starts_n[q]; i++) {
            int sid = s->starts[q][i];
            for (int k = 0; k < t->completion_n[sid]; k++)
                if (t->completion_card[sid][k] == CC_JOKER && t->completion_pos[sid][k] <= maxpos)
                    return 1;
        }
        for (int i = 0; i < s->melds_n; i++) {
            const cc_meld *m = &s->melds[i];
            int ends[2];
            if (m->is_set ? m->n < 4 : open_ends(m, maxpos, ends) > 0) return 1;
        }
        return 0;
    }
    if (s->starts_n[p] < s->max_open_starts)
        for (int i = 0; i < hand_n; i++) {
            int h = hand[i];
            if (h < CC_N_STANDARD) {
                int sid = t->start_lookup[x * CC_N_STANDARD + h];
                if (sid >= 0 && (maxpos == CC_HIGH_ACE || !needs_high_ace(t, sid))) return 1;
            }
        }
    for (int i = 0; i < s->starts_n[q]; i++) {
        int sid = s->starts[q][i];
        for (int k = 0; k < t->completion_n[sid]; k++)
            if (t->completion_card[sid][k] == x && t->completion_pos[sid][k] <= maxpos) return 1;
    }
    int suit = x / 13, rank = x % 13;
    int cand_lo[CC_MAX_MELDS + 3], cand_hi[CC_MAX_MELDS + 3], cand_gap[CC_MAX_MELDS + 3];
    int nc = 0;
    for (int i = 0; i < s->melds_n; i++) {
        const cc_meld *m = &s->melds[i];
        if (m->is_set) {
            if (m->rank == rank && (m->n < 4 || m->jokers)) return 1;
        } else if (m->suit == suit) {
            for (int j = 0; j < m->n; j++)
                if (m->cards[j] >= CC_N_STANDARD && card_at(suit, m->lo + j) == x) return 1;
            cand_lo[nc] = m->lo;
            cand_hi[nc] = m->lo + m->n - 1;
            cand_gap[nc++] = 0;
        }
    }
    for (int i = 0; i < s->starts_n[q]; i++) {
        int sid = s->starts[q][i];
        if (t->start_kind[sid] != CC_PAIR && t->start_suit[sid] == suit) {
            cand_lo[nc] = t->start_lo[sid];
            cand_hi[nc] = t->start_hi[sid];
            cand_gap[nc++] = t->start_kind[sid] == CC_GAP ? t->start_lo[sid] + 1 : 0;
        }
    }
    if (!nc) return 0;
    uint64_t held = standard_cards(hand, hand_n);
    int jokers = hand_n - popcount(held);
    int spots[2] = {rank + 1, CC_HIGH_ACE};
    int n_spots = rank == 0 && maxpos == CC_HIGH_ACE ? 2 : 1;
    for (int i = 0; i < nc; i++)
        for (int k = 0; k < n_spots; k++) {
            int px = spots[k], lo = cand_lo[i], hi = cand_hi[i], from, to, new_lo, new_hi;
            if (lo <= px && px <= hi) continue;
            if (px < lo) { from = px + 1; to = lo; new_lo = px; new_hi = hi; }
            else { from = hi + 1; to = px; new_lo = lo; new_hi = px; }
            if (new_hi > maxpos || (new_lo == 1 && new_hi == CC_HIGH_ACE)) continue;
            uint64_t used = 0;
            int path = 0;
            for (int pos = from; pos < to; pos++, path++) used |= BIT(card_at(suit, pos)) & held;
            if (cand_gap[i]) {
                used |= BIT(card_at(suit, cand_gap[i])) & held;
                path++;
            }
            int needed = path - popcount(used);
            if (needed <= jokers || needed <= jokers + freeable_jokers(s, held & ~used)) return 1;
        }
    return 0;
}

/* GameState._placements: player p's legal placements, in no particular order. */
static int placements(const cc_state *s, const cc_tables *t, int p, int16_t *out) {
    int n = 0, maxpos = s->maxpos, q = 1 - p;
    uint64_t held = held_types(s->hand[p], s->hand_n[p]);
    if (s->starts_n[p] < s->max_open_starts)
        for (int i = 0; i < s->hand_n[p]; i++) {
            int a = s->hand[p][i];
            if (a >= CC_N_STANDARD) continue;
            for (int b = a + 1; b < CC_N_STANDARD; b++) {
                int sid = t->start_lookup[a * CC_N_STANDARD + b];
                if (sid >= 0 && (held & BIT(b)) && (maxpos == CC_HIGH_ACE || !needs_high_ace(t, sid)))
                    out[n++] = (int16_t)(t->start_base + sid);
            }
        }
    for (int i = 0; i < s->starts_n[q]; i++) {
        int sid = s->starts[q][i];
        for (int k = 0; k < t->completion_n[sid]; k++)
            if (t->completion_pos[sid][k] <= maxpos && (held & BIT(t->completion_card[sid][k])))
                out[n++] = t->completion_aid[sid][k];
    }
    int16_t cards[64], aids[64];
    for (int i = 0; i < s->melds_n; i++) {
        int k = meld_offers(&s->melds[i], t, maxpos, cards, aids);
        for (int j = 0; j < k; j++)
            if (held & BIT(cards[j])) out[n++] = aids[j];
    }
    return n;
}


/* GameState._still_placeable_after */
static int still_placeable_after(const cc_state *s, const cc_tables *t, int action) {
    cc_state after;
    memcpy(&after, s, sizeof(after));
    cc_apply(&after, t, action);
    if (after.pending < 0 || after.result != CC_PLAYING) return 1;
    int p = after.current, n = 0;
    int8_t hand[CC_N_PHYSICAL];
    for (int i = 0; i < after.hand_n[p]; i++)
        if (after.hand[p][i] != after.pending) hand[n++] = after.hand[p][i];
    return placeable(&after, t, after.pending, hand, n, p);
}

/* GameState._keeping_pending_placeable */
static int keeping_pending_placeable(const cc_state *s, const cc_tables *t, int16_t *moves,
                                     int n) {
    int x = s->pending, x_type = x < CC_JOKER ? x : CC_JOKER;
    int targets[CC_MAX_LEGAL], nt = 0;
    uint64_t partners = 0;
    for (int i = 0; i < n; i++) {
        int a = moves[i];
        if (a < t->complete_base) {
            int sid = t->origin[a], c1 = t->start_a[sid], c2 = t->start_b[sid];
            if (x == c1) partners |= BIT(c2);
            else if (x == c2) partners |= BIT(c1);
        } else if (t->card[a] == x_type) {
            int o = t->origin[a], seen = 0;
            for (int j = 0; j < nt; j++) seen |= targets[j] == o;
            if (!seen) targets[nt++] = o;
        }
    }
    int room = s->starts_n[s->current] + 1 < s->max_open_starts, kept = 0;
    for (int i = 0; i < n; i++) {
        int a = moves[i], places_x, keeps_partner, other_target = 0;
        if (a < t->complete_base) {
            int sid = t->origin[a];
            uint64_t cards = BIT(t->start_a[sid]) | BIT(t->start_b[sid]);
            places_x = x == t->start_a[sid] || x == t->start_b[sid];
            keeps_partner = room && (partners & ~cards);
        } else {
            int card = t->card[a];
            places_x = card == x_type;
            keeps_partner = (partners & ~BIT(card)) != 0;
        }
        for (int j = 0; j < nt; j++) other_target |= targets[j] != t->origin[a];
        if (places_x || keeps_partner || other_target || still_placeable_after(s, t, a))
            moves[kept++] = (int16_t)a;
    }
    return kept;
}

/* The real cards that complete start sid (baseline.py's _COMPLETERS). */
static uint64_t completers(const cc_tables *t, int sid, int maxpos) {
    uint64_t out = 0;
    for (int k = 0; k < t->completion_n[sid]; k++)
        if (t->completion_card[sid][k] != CC_JOKER && t->completion_pos[sid][k] <= maxpos)
            out |= BIT(t->completion_card[sid][k]);
    return out;
}

/* GameState._own_completers: the real cards that complete one of player p's open starts. */
static uint64_t own_completers(const cc_state *s, const cc_tables *t, int p) {
    uint64_t out = 0;
    for (int i = 0; i < s->starts_n[p]; i++) out |= completers(t, s->starts[p][i], s->maxpos);
    return out;
}

static int compute_legal(cc_state *s, const cc_tables *t, int16_t *out) {
    if (s->result != CC_PLAYING) return 0;
    int p = s->current;
    if (s->phase == CC_DRAW_PHASE) {
        int takeable = s->pile_n && placeable(s, t, s->pile[s->pile_n - 1], s->hand[p],
                                              s->hand_n[p], p);
        int n = 0;
        if (!s->stock_n) {
            out[n++] = takeable ? 1 : 0;
            return n;
        }
        out[n++] = 0;
        if (takeable) out[n++] = 1;
        return n;
    }
    int n = placements(s, t, p, out);
    if (s->pending >= 0) return keeping_pending_placeable(s, t, out, n);
    uint64_t types = held_types(s->hand[p], s->hand_n[p]);
    if (s->signal_rule) {
        uint64_t signals = types & own_completers(s, t, p);
        if (signals) types = signals;
    }
    for (int c = 0; c <= CC_JOKER; c++)
        if (types & BIT(c)) out[n++] = (int16_t)(t->discard_base + c);
    return n;
}

int cc_legal(cc_state *s, const cc_tables *t) {
    if (s->legal_valid) return s->legal_n;
    int16_t *legal = s->legal;
    int n = compute_legal(s, t, legal);
    for (int i = 1; i < n; i++) { /* ascending (insertion sort: short lists) */
        int16_t v = legal[i];
        int j = i - 1;
        while (j >= 0 && legal[j] > v) {
            legal[j + 1] = legal[j];
            j--;
        }
        legal[j + 1] = v;
    }
    s->legal_n = (int16_t)n;
    s->legal_valid = 1;
    return n;
}

/* ---- moves --------------------------------------------------------------------------- */
static int check_win(cc_state *s) {
    if (s->hand_n[0] || s->hand_n[1] || s->starts_n[0] || s->starts_n[1]) return 0;
    s->result = CC_WIN;
    return 1;
}

static void end_turn(cc_state *s) {
    s->current ^= 1;
    s->phase = CC_DRAW_PHASE;
}

static void complete(cc_state *s, const cc_tables *t, int p, int sid, int card, int pos) {
    remove16(s->starts[1 - p], &s->starts_n[1 - p], sid);
    remove16(s->start_order, &s->start_order_n, sid);
    int physical = take(s, p, card);
    cc_meld *m = &s->melds[s->melds_n];
    memset(m, 0, sizeof(*m));
    m->origin = (int16_t)sid;
    m->is_set = t->start_kind[sid] == CC_PAIR;
    m->rank = (int8_t)t->start_rank[sid];
    m->suit = (int8_t)t->start_suit[sid];
    m->n = 3;
    if (m->is_set) {
        m->cards[0] = (int8_t)t->start_a[sid];
        m->cards[1] = (int8_t)t->start_b[sid];
        m->cards[2] = (int8_t)physical;
    } else {
        int lo = t->start_lo[sid], hi = t->start_hi[sid];
        int low = pos < lo ? pos : lo;
        m->lo = (int8_t)low;
        for (int q = low; q < low + 3; q++)
            m->cards[q - low] = (int8_t)(q == pos ? physical : card_at(m->suit, q));
        (void)hi;
    }
    m->jokers = physical >= CC_N_STANDARD;
    if (card != CC_JOKER) s->table_cards |= BIT(card);
    s->meld_index[sid] = s->melds_n++;
}

static void layoff(cc_state *s, int p, cc_meld *m, int card, int stands) {
    int physical = take(s, p, card);
    if (card != CC_JOKER) s->table_cards |= BIT(card);
    if (m->is_set) {
        m->cards[m->n++] = (int8_t)physical;
    } else {
        int target = card == CC_JOKER ? stands : card, ends[2];
        open_ends(m, s->maxpos, ends);
        if (card_at(m->suit, ends[0]) == target && ends[0] < m->lo) {
            memmove(&m->cards[1], &m->cards[0], (size_t)m->n);
            m->cards[0] = (int8_t)physical;
            m->lo--;
        } else {
            m->cards[m->n] = (int8_t)physical;
        }
        m->n++;
    }
    m->jokers += physical >= CC_N_STANDARD;
}

static void swap_in(cc_state *s, int p, cc_meld *m, int card) {
    hand_remove(s, p, card);
    s->table_cards |= BIT(card);
    int index = 0;
    for (int i = 0; i < m->n; i++)
        if (m->cards[i] >= CC_N_STANDARD && (m->is_set || card_at(m->suit, m->lo + i) == card)) {
            index = i;
            break;
        }
    int joker = m->cards[index];
    m->cards[index] = (int8_t)card;
    m->jokers--;
    s->hand[p][s->hand_n[p]++] = (int8_t)joker;
}

void cc_apply(cc_state *s, const cc_tables *t, int action) {
    int p = s->current;
    s->legal_valid = 0;
    if (action == 0) {
        if (!s->stock_n) {
            s->result = CC_LOSS;
            return;
        }
        s->hand[p][s->hand_n[p]++] = s->stock[--s->stock_n];
        s->turns++;
        s->phase = CC_PLACE_PHASE;
        return;
    }
    if (action == 1) {
        int card = s->pile[--s->pile_n], entry = s->pile_entry[s->pile_n];
        s->log_taken[entry] = 1;
        s->taken[s->taken_n++] = (int16_t)entry;
        s->hand[p][s->hand_n[p]++] = (int8_t)card;
        s->pending = (int8_t)card;
        s->pickups++;
        s->turns++;
        s->phase = CC_PLACE_PHASE;
        return;
    }
    int kind = t->kind[action], origin = t->origin[action], card = t->card[action];
    if (kind == CC_DISCARD) {
        int physical = take(s, p, card);
        s->pile[s->pile_n] = (int8_t)physical;
        s->pile_entry[s->pile_n++] = s->log_n;
        s->log_card[s->log_n] = (int8_t)physical;
        s->log_who[s->log_n] = (int8_t)p;
        s->log_taken[s->log_n++] = 0;
        if (!check_win(s)) end_turn(s);
        return;
    }
    s->placements++;
    if (kind == CC_START) {
        int a = t->start_a[origin], b = t->start_b[origin];
        hand_remove(s, p, a);
        hand_remove(s, p, b);
        s->table_cards |= BIT(a) | BIT(b);
        s->starts[p][s->starts_n[p]++] = (int16_t)origin;
        s->start_order[s->start_order_n++] = (int16_t)origin;
    } else if (kind == CC_COMPLETE) {
        complete(s, t, p, origin, card, t->position[action]);
    } else if (kind == CC_LAYOFF) {
        layoff(s, p, &s->melds[s->meld_index[origin]], card, t->stands_for[action]);
    } else {
        swap_in(s, p, &s->melds[s->meld_index[origin]], card);
    }
    /* GameState._after_placement */
    if (s->pending >= 0 && !in_hand(s, p, s->pending)) s->pending = -1;
    if (check_win(s)) return;
    if (!s->hand_n[p]) end_turn(s);
}

/* ---- the observation (observer.py's Observer.encode) ----------------------------------- */
static void card_plane(float *out, int offset, const int8_t *cards, int n) {
    int jokers = 0;
    for (int i = 0; i < n; i++) {
        if (cards[i] < CC_N_STANDARD) out[offset + cards[i]] = 1.0f;
        else out[offset + CC_N_STANDARD + jokers++] = 1.0f;
    }
}

static void start_planes(const cc_tables *t, float *out, int sid, int base, int completes,
                         int maxpos) {
    out[base + t->start_a[sid]] = 1.0f;
    out[base + t->start_b[sid]] = 1.0f;
    for (int k = 0; k < t->completion_n[sid]; k++)
        if (t->completion_card[sid][k] != CC_JOKER && t->completion_pos[sid][k] <= maxpos)
            out[completes + t->completion_card[sid][k]] = 1.0f;
}

void cc_encode(const cc_state *s, const cc_tables *t, int player, float *out) {
    int partner = 1 - player, maxpos = s->maxpos, mine = s->current == player;
    memset(out, 0, sizeof(float) * (size_t)t->obs_size);
    card_plane(out, t->off_hand, s->hand[player], s->hand_n[player]);
    if (s->open_hands) card_plane(out, t->off_partner_hand, s->hand[partner], s->hand_n[partner]);
    for (int i = 0; i < s->starts_n[player]; i++)
        start_planes(t, out, s->starts[player][i], t->off_my_starts, t->off_completes_mine, maxpos);
    for (int i = 0; i < s->starts_n[partner]; i++)
        start_planes(t, out, s->starts[partner][i], t->off_partner_starts,
                     t->off_completes_partner, maxpos);
    int table_jokers = 0;
    for (int i = 0; i < s->melds_n; i++) {
        const cc_meld *m = &s->melds[i];
        for (int j = 0; j < m->n; j++)
            if (m->cards[j] < CC_N_STANDARD) out[t->off_meld_cards + m->cards[j]] = 1.0f;
        if (m->is_set) {
            if (m->n < 4) {
                uint64_t missing = missing_suit_cards(m);
                for (int c = 0; c < CC_N_STANDARD; c++)
                    if (missing & BIT(c)) out[t->off_layoff_cards + c] = 1.0f;
            }
        } else {
            for (int j = 0; j < m->n; j++)
                if (m->cards[j] >= CC_N_STANDARD)
                    out[t->off_stand_ins + card_at(m->suit, m->lo + j)] = 1.0f;
            int ends[2], k = open_ends(m, maxpos, ends);
            for (int j = 0; j < k; j++) out[t->off_layoff_cards + card_at(m->suit, ends[j])] = 1.0f;
        }
        table_jokers += m->jokers;
    }
    for (int i = 0; i < table_jokers; i++) out[t->off_table_jokers + CC_N_STANDARD + i] = 1.0f;
    /* the discard history: a joker's slot is 52 for the first joker discard, 53 after */
    int slots[CC_MAX_LOG], jokers = 0;
    for (int i = 0; i < s->log_n; i++) {
        int card = s->log_card[i], who = s->log_who[i];
        int slot = card < CC_N_STANDARD ? card : CC_N_STANDARD + (jokers++ ? 1 : 0);
        slots[i] = slot;
        int plane = who == player ? t->off_mine : who >= 0 ? t->off_theirs : t->off_turned;
        out[plane + slot] = 1.0f;
        out[t->off_order + slot] = (float)((i + 1 < 64 ? i + 1 : 64) / 64.0);
    }
    for (int i = 0; i < s->taken_n; i++) out[t->off_taken + slots[s->taken[i]]] = 1.0f;
    for (int i = 0; i < s->pile_n; i++) out[t->off_in_pile + slots[s->pile_entry[i]]] = 1.0f;
    if (s->pile_n) out[t->off_top + slots[s->pile_entry[s->pile_n - 1]]] = 1.0f;
    for (int k = 0, i = s->log_n - 1; k < t->recent && i >= 0; k++, i--) {
        int base = t->off_recent + k * t->recent_width, who = s->log_who[i];
        out[base + slots[i]] = 1.0f;
        if (who == player) out[base + 54] = 1.0f;
        else if (who >= 0) out[base + 55] = 1.0f;
        if (s->log_taken[i]) out[base + 56] = 1.0f;
    }
    if (mine && s->pending >= 0)
        out[t->off_pending + (s->pending < CC_JOKER ? s->pending : CC_JOKER)] = 1.0f;
    float *sc = out + t->off_scalars;
    sc[0] = (float)(s->stock_n / 33.0);
    sc[1] = (float)(s->hand_n[player] / 16.0);
    sc[2] = (float)(s->hand_n[partner] / 16.0);
    sc[3] = (float)(s->starts_n[player] / 3.0);
    sc[4] = (float)(s->starts_n[partner] / 3.0);
    sc[5] = (float)((s->turns < 64 ? s->turns : 64) / 64.0);
    if (mine) sc[6 + (s->phase != CC_DRAW_PHASE)] = 1.0f;
    sc[8] = player == 0;
    sc[9] = (float)(s->stock_size / 33.0);
    sc[10] = s->open_hands;
    sc[11] = s->ace_low;
    sc[12] = s->max_open_starts == 3;
    sc[13] = 0.0f; /* early loss (not supported here) */
    sc[14] = s->signal_rule;
    sc[15] = (float)((s->pickups < 16 ? s->pickups : 16) / 16.0);
}

void cc_encode_hidden(const cc_state *s, int seat, float *out) {
    memset(out, 0, sizeof(float) * 3 * CC_N_PHYSICAL);
    card_plane(out, 0, s->hand[1 - seat], s->hand_n[1 - seat]);
    card_plane(out, 2 * CC_N_PHYSICAL, s->aside, s->aside_n);
    int jokers = 0, n = s->stock_n; /* the stock by draw order: the top (last) 1.0 */
    for (int i = 0; i < n; i++) {
        int c = s->stock[i];
        int slot = c < CC_N_STANDARD ? c : CC_N_STANDARD + jokers++;
        out[CC_N_PHYSICAL + slot] = (float)((i + 1) / (double)n);
    }
}

/* ---- the baseline (baseline.py's BaselineAgent, default options) ----------------------- */
static uint64_t linked(const cc_tables *t, int c) { /* LINKED_SETS[c] */
    uint64_t out = 0;
    for (int d = 0; d < CC_N_STANDARD; d++)
        if (t->start_lookup[c * CC_N_STANDARD + d] >= 0) out |= BIT(d);
    return out;
}

/* BaselineAgent._unseen: the standard cards this seat has seen nowhere, and unseen jokers */
static uint64_t unseen_cards(const cc_state *s, int p, int *jokers_unseen) {
    uint64_t seen = s->table_cards;
    int jokers = 0;
    uint8_t physical_jokers = 0;
    for (int i = 0; i < s->pile_n; i++) {
        int c = s->pile[i];
        if (c < CC_N_STANDARD) seen |= BIT(c);
        else physical_jokers |= (uint8_t)(1 << (c - CC_N_STANDARD));
    }
    for (int i = 0; i < s->hand_n[p]; i++) {
        int c = s->hand[p][i];
        if (c < CC_N_STANDARD) seen |= BIT(c);
        else physical_jokers |= (uint8_t)(1 << (c - CC_N_STANDARD));
    }
    jokers = popcount(physical_jokers);
    for (int i = 0; i < s->melds_n; i++) jokers += s->melds[i].jokers;
    *jokers_unseen = 2 - jokers;
    return ((1ULL << CC_N_STANDARD) - 1) & ~seen;
}

static int fits_without_own_start(const cc_state *s, const cc_tables *t, int p, int card) {
    if (card >= CC_N_STANDARD) return 1;
    int q = 1 - p;
    for (int i = 0; i < s->starts_n[q]; i++) {
        int sid = s->starts[q][i];
        for (int k = 0; k < t->completion_n[sid]; k++)
            if (t->completion_card[sid][k] == card) return 1;
    }
    int16_t cards[64], aids[64];
    for (int i = 0; i < s->melds_n; i++) {
        int n = meld_offers(&s->melds[i], t, s->maxpos, cards, aids);
        for (int j = 0; j < n; j++)
            if (cards[j] == card) return 1;
    }
    return 0;
}

static int take_discard(const cc_state *s, const cc_tables *t, int p) {
    if (!s->pile_n) return 0;
    int top = s->pile[s->pile_n - 1];
    if (fits_without_own_start(s, t, p, top)) return 1;
    if (top >= CC_N_STANDARD) return 0;
    return s->starts_n[p] < s->max_open_starts &&
           (linked(t, top) & standard_cards(s->hand[p], s->hand_n[p]));
}

static int baseline_placement(const cc_state *s, const cc_tables *t, int p) {
    const int16_t *legal = s->legal;
    int n = s->legal_n, pending = s->pending, maxpos = s->maxpos;
    int pending_type = pending >= 0 ? (pending < CC_N_STANDARD ? pending : CC_JOKER) : -2;
    int first = 0;
    while (first < n && legal[first] < t->start_base) first++;
    if (first == n) return -1;
    int16_t groups[3][CC_MAX_LEGAL], starts[CC_MAX_LEGAL], joker_completes[CC_MAX_LEGAL];
    int gn[3] = {0, 0, 0}, ns = 0, njc = 0, joker_layoff = -1;
    for (int i = first; i < n; i++) {
        int a = legal[i], kind = t->kind[a], joker = t->card[a] == CC_JOKER;
        if (kind == CC_START) starts[ns++] = (int16_t)a;
        else if (kind == CC_COMPLETE) {
            if (joker) joker_completes[njc++] = (int16_t)a;
            else groups[0][gn[0]++] = (int16_t)a;
        } else if (kind == CC_LAYOFF) {
            if (joker) { if (joker_layoff < 0) joker_layoff = a; }
            else groups[1][gn[1]++] = (int16_t)a;
        } else if (kind == CC_SWAP) groups[2][gn[2]++] = (int16_t)a;
    }
    for (int g = 0; g < 3; g++)
        if (gn[g]) {
            for (int i = 0; i < gn[g]; i++)
                if (t->card[groups[g][i]] == pending_type) return groups[g][i];
            return groups[g][0];
        }
    int jokers_unseen = 0;
    uint64_t unseen = 0;
    if (ns) {
        if (pending >= 0) {
            int nw = 0;
            for (int i = 0; i < ns; i++) {
                int sid = t->origin[starts[i]];
                if (t->start_a[sid] == pending || t->start_b[sid] == pending) starts[nw++] = starts[i];
            }
            if (nw) ns = nw;
        }
        if (ns == 1) return starts[0];
        uint64_t hand = standard_cards(s->hand[p], s->hand_n[p]);
        unseen = unseen_cards(s, p, &jokers_unseen);
        int best = -1;
        double best_score = 0.0;
        for (int i = 0; i < ns; i++) { /* BaselineAgent._start_score */
            int sid = t->origin[starts[i]];
            uint64_t comp = completers(t, sid, maxpos);
            int sure = (comp & hand) ? 3 : 0, real = popcount(comp & unseen);
            double score = (double)(sure + real) + 0.5 * jokers_unseen + t->kind_bonus[sid];
            if (best < 0 || score > best_score) {
                best = starts[i];
                best_score = score;
            }
        }
        return best;
    }
    int real_in_hand = 0;
    for (int i = 0; i < s->hand_n[p]; i++) real_in_hand |= s->hand[p][i] < CC_N_STANDARD;
    if (njc) { /* jokers "hold" */
        unseen = unseen_cards(s, p, &jokers_unseen);
        int free = s->stock_n <= 2 || !real_in_hand, best = -1, fewest = 0;
        for (int i = 0; i < njc; i++) {
            int unseen_n = popcount(completers(t, t->origin[joker_completes[i]], maxpos) & unseen);
            if (!free && unseen_n) continue;
            if (best < 0 || unseen_n < fewest) {
                best = joker_completes[i];
                fewest = unseen_n;
            }
        }
        if (best >= 0) return best;
    }
    if (joker_layoff >= 0 && !real_in_hand) return joker_layoff;
    if (pending >= 0) return legal[first];
    return -1;
}

static int baseline_discard(const cc_state *s, const cc_tables *t, int p) {
    const int16_t *legal = s->legal;
    int n = 0;
    while (n < s->legal_n && legal[n] < t->start_base) n++;
    uint64_t message = own_completers(s, t, p);
    if (message)
        for (int i = 0; i < n; i++)
            if (legal[i] - t->discard_base < CC_N_STANDARD && (message & BIT(legal[i] - t->discard_base)))
                return legal[i];
    uint64_t held = standard_cards(s->hand[p], s->hand_n[p]);
    if (!held) return legal[0];
    int fewest = 99, tied[CC_N_PHYSICAL], nt = 0;
    for (int i = 0; i < s->hand_n[p]; i++) {
        int c = s->hand[p][i];
        if (c >= CC_N_STANDARD) continue;
        int links = popcount(linked(t, c) & held);
        if (links < fewest) {
            fewest = links;
            nt = 0;
        }
        if (links == fewest) tied[nt++] = c;
    }
    if (nt == 1) return t->discard_base + tied[0];
    int jokers_unseen;
    uint64_t unseen = unseen_cards(s, p, &jokers_unseen);
    int best = -1, best_links = 0;
    for (int i = 0; i < nt; i++) { /* fewest unseen links, then the higher card */
        int c = tied[i], links = popcount(linked(t, c) & unseen);
        if (best < 0 || links < best_links || (links == best_links && c > best)) {
            best = c;
            best_links = links;
        }
    }
    return t->discard_base + best;
}

int cc_baseline(cc_state *s, const cc_tables *t) {
    int p = s->current;
    if (s->phase == CC_DRAW_PHASE) {
        if (s->stock_n && !take_discard(s, t, p)) return 0;
        cc_legal(s, t);
        for (int i = 0; i < s->legal_n; i++)
            if (s->legal[i] == 1) return 1;
        return 0;
    }
    cc_legal(s, t);
    int placement = baseline_placement(s, t, p);
    return placement >= 0 ? placement : baseline_discard(s, t, p);
}
