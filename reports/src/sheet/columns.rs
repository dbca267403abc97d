//! Columns many reports share, named once.

use super::cell::{column, Column};

pub const GAMING_DAY: Column = column("gaming_day", "Herní den", "Gaming day");
pub const TABLE: Column = column("table_id", "Stůl", "Table");
pub const GAME: Column = column("game", "Hra", "Game");
pub const PLAYED_AT: Column = column("played_at", "Odehráno", "Played at");
pub const ACTUAL_RTP: Column = column("actual_rtp_pct", "Skutečné RTP (%)", "Actual RTP (%)");
pub const DEVIATION_SD: Column = column("deviation_sd", "Odchylka (σ)", "Deviation (σ)");
pub const DIFFERENCE: Column = column("difference_h", "Rozdíl (Kč)", "Difference (CZK)");
pub const FINDINGS: Column = column("findings", "Nálezů", "Findings");
pub const FINDINGS_AMOUNT: Column = column(
    "findings_amount_h",
    "Částka nálezů (Kč)",
    "Findings' amount (CZK)",
);
pub const GGR: Column = column(
    "ggr_h",
    "Hrubý herní příjem (Kč)",
    "Gross gaming revenue (CZK)",
);
pub const AMOUNT: Column = column("amount_h", "Částka (Kč)", "Amount (CZK)");
pub const BET_IDS: Column = column("bet_ids", "Sázky", "Bets");
pub const ROUND_ID: Column = column("round_id", "Kolo", "Round");
pub const DESCRIPTION: Column = column("message", "Popis", "Description");
pub const MONTH: Column = column("month", "Měsíc", "Month");
pub const PAYOUTS: Column = column("payouts_h", "Vyplaceno (Kč)", "Paid out (CZK)");
pub const PROVISIONAL: Column = column("provisional", "Předběžné", "Provisional");
pub const RETURNED_STAKES: Column = column(
    "returned_stakes_h",
    "Vrácené sázky (Kč)",
    "Stakes returned (CZK)",
);
pub const ROUNDS: Column = column("rounds", "Kol", "Rounds");
pub const HAND_SEQ_NO: Column = column("seq_no", "Hra (seq_no)", "Hand (seq_no)");
pub const STAKES: Column = column("stakes_h", "Vsazeno (Kč)", "Staked (CZK)");
pub const THEORETICAL_RTP: Column = column(
    "theoretical_rtp_pct",
    "Teoretické RTP (%)",
    "Theoretical RTP (%)",
);
