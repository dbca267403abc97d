//! Scoring one Pineapple OFC hand: each player's rows (fouled or not, royalties), then points
//! pair by pair, then money with each pair's point value and the optional stop-loss.

use crate::cards::Card;
use crate::hand_rank::{evaluate, Category, HandRank};
use crate::plan::poker::{rank_of_letter, EqualRows, OfcPlan};

/// A player's three rows, judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoredRows {
    pub front: HandRank,
    pub middle: HandRank,
    pub back: HandRank,
    /// Back weaker than middle, or middle weaker than front.
    pub fouled: bool,
    /// Royalty points of the three rows (none when fouled).
    pub royalties: i64,
}

/// Strength of a row; a three-card front has no straights or flushes (the evaluator needs
/// five cards for either), and compares with a five-card row card by card.
pub fn row_strength(cards: &[Card]) -> HandRank {
    evaluate(cards.iter().copied().collect())
}

fn front_royalty(plan: &OfcPlan, front: HandRank) -> i64 {
    let table = match front.category() {
        Category::Pair => &plan.front_pair_royalties,
        Category::Trips => &plan.front_trip_royalties,
        _ => return 0,
    };
    table
        .iter()
        .find(|(letter, _)| rank_of_letter(letter) == Some(front.top_rank()))
        .map_or(0, |(_, points)| *points)
}

pub fn score_rows(plan: &OfcPlan, front: &[Card], middle: &[Card], back: &[Card]) -> ScoredRows {
    let (front, middle, back) = (
        row_strength(front),
        row_strength(middle),
        row_strength(back),
    );
    // The plan's foul: "v Back Hand je slabší kombinace než v prostřední Hand" — weaker, so an
    // equal row is not a foul, unless the plan's parameter reads "must be weaker" strictly.
    let fouled = match plan.equal_rows {
        EqualRows::Allowed => back < middle || middle < front,
        EqualRows::Foul => back <= middle || middle <= front,
    };
    let royalties = if fouled {
        0
    } else {
        plan.back_royalties.points(back)
            + plan.middle_royalties.points(middle)
            + front_royalty(plan, front)
    };
    ScoredRows {
        front,
        middle,
        back,
        fouled,
        royalties,
    }
}

/// Points `a` wins from `b` (negative: `a` pays): a row point for each row won, the scoop
/// bonus for all three, both players' royalties; a fouled hand scores nothing and pays the
/// other's rows, scoop and royalties.
pub fn pair_points(plan: &OfcPlan, a: &ScoredRows, b: &ScoredRows) -> i64 {
    let sweep = 3 * plan.row_points + plan.scoop_bonus;
    match (a.fouled, b.fouled) {
        (true, true) => 0,
        (true, false) => -(sweep + b.royalties),
        (false, true) => sweep + a.royalties,
        (false, false) => {
            let rows = [(a.front, b.front), (a.middle, b.middle), (a.back, b.back)];
            let won = rows.iter().filter(|(x, y)| x > y).count() as i64;
            let lost = rows.iter().filter(|(x, y)| x < y).count() as i64;
            let scoop = match (won, lost) {
                (3, _) => plan.scoop_bonus,
                (_, 3) => -plan.scoop_bonus,
                _ => 0,
            };
            (won - lost) * plan.row_points + scoop + a.royalties - b.royalties
        }
    }
}

/// Cards the player is dealt at once in the next hand, if the rows earn fantasy land:
/// entering with a front pair of queens or better or trips, staying (already in it) with trips
/// in front or quads or better in back. Never after a foul.
pub fn fantasy_next(plan: &OfcPlan, rows: &ScoredRows, in_fantasy: bool) -> Option<u8> {
    if rows.fouled {
        return None;
    }
    let by_front = match rows.front.category() {
        Category::Trips => Some(plan.fantasy_trips_cards),
        Category::Pair => plan
            .fantasy_pair_cards
            .iter()
            .find(|(letter, _)| rank_of_letter(letter) == Some(rows.front.top_rank()))
            .map(|(_, cards)| *cards),
        _ => None,
    };
    if !in_fantasy {
        return by_front;
    }
    let stays = rows.front.category() == Category::Trips || rows.back.category() >= Category::Quads;
    stays.then(|| by_front.unwrap_or(0).max(plan.fantasy_stay_cards))
}

/// Shares `total` among `weights` in proportion, rounded down, the haléře left over one each to
/// the largest weights first (ties: the earlier). Weights and total are non-negative.
pub fn share(total: i64, weights: &[i64]) -> Vec<i64> {
    let sum: i128 = weights.iter().map(|&w| i128::from(w)).sum();
    if sum == 0 {
        return vec![0; weights.len()];
    }
    let mut shares: Vec<i64> = weights
        .iter()
        .map(|&w| i64::try_from(i128::from(total) * i128::from(w) / sum).unwrap_or(i64::MAX))
        .collect();
    let mut left = total - shares.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(weights[i]), i));
    for i in order.into_iter().cycle() {
        if left <= 0 {
            break;
        }
        if weights[i] > 0 {
            shares[i] += 1;
            left -= 1;
        }
    }
    shares
}

/// The stop-loss ("Hráči mohou vyhrát nebo prohrát pouze ty žetony, které měli na začátku té
/// konkrétní hry"): no one loses more than their stack at the start of the hand — the shortfall
/// is taken from the winners in proportion to their wins — and no one wins more than their own
/// stack — the excess goes back to the losers in proportion to their losses.
pub fn apply_stop_loss(nets: &mut [i64], stacks: &[i64]) {
    let shortfall: i64 = nets
        .iter()
        .zip(stacks)
        .map(|(&net, &stack)| (-net - stack).max(0))
        .sum();
    if shortfall > 0 {
        for (net, &stack) in nets.iter_mut().zip(stacks) {
            *net = (*net).max(-stack);
        }
        let wins: Vec<i64> = nets.iter().map(|&n| n.max(0)).collect();
        for (net, cut) in nets.iter_mut().zip(share(shortfall, &wins)) {
            *net -= cut;
        }
    }
    let excess: i64 = nets
        .iter()
        .zip(stacks)
        .map(|(&net, &stack)| (net - stack).max(0))
        .sum();
    if excess > 0 {
        for (net, &stack) in nets.iter_mut().zip(stacks) {
            *net = (*net).min(stack);
        }
        let losses: Vec<i64> = nets.iter().map(|&n| (-n).max(0)).collect();
        for (net, back) in nets.iter_mut().zip(share(excess, &losses)) {
            *net += back;
        }
    }
}
