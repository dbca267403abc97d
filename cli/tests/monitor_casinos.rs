#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The regulator's monitor as it is meant to run: two casinos, each a `dozor serve` with its own
//! PostgreSQL cluster and operator key publishing its ledger as tiles into a folder, both
//! cosigned by the regulator's one `dozor witness`; Debian's nginx serves both folders; one
//! `dozor monitor` follows both over HTTP while `simulate` plays at each.
//!
//! Every round of both reaches the monitor, and its figures per gaming day and game are the
//! casino's own month report's, figure by figure. Then each fault is caught and named, the other
//! casino going on unaffected: the monitor killed in the middle of a large step (nothing counted
//! twice), the casinos unreachable for a while (caught up after, nothing skipped), a verdict
//! changed by the casino's database superuser (the round named as a mismatch), a changed byte of
//! a published tile (the tile named), and a ledger rolled back and signed again by the operator
//! (both notes kept, the casino halted).

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::casinos::{size_of, Casino, Monitor, Witness};
use common::nginx::Nginx;
use common::Succeeds as _;
use dozor_log::tiles::{Tile, TileKind};
use serde_json::Value;

/// Per gaming day and game: rounds, void rounds, stakes, paid, findings, their amount.
type Figures = BTreeMap<(String, String), [i64; 6]>;

/// The casino's own figures: its month report's rows of each gaming day and game.
fn report_figures(casino: &Casino) -> Figures {
    let report = casino.month_report();
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["gaming_day"].is_string() && r["table_id"].is_null())
        .map(|r| {
            let n = |v: &Value| v.as_i64().unwrap();
            let key = (
                r["gaming_day"].as_str().unwrap().to_owned(),
                r["game"].as_str().unwrap().to_owned(),
            );
            let figures = [
                n(&r["rounds"]),
                n(&r["void_rounds"]),
                n(&r["stakes_h"]),
                // What the tables handed back: payouts of played rounds and the stakes
                // returned on void ones (the monitor's paid sums every round's).
                n(&r["payouts_h"]) + n(&r["returned_stakes_h"]),
                n(&r["findings"]["count"]),
                n(&r["findings"]["amount_h"]),
            ];
            (key, figures)
        })
        .collect()
}

/// The monitor's figures of `casino`, as its tallies keep them.
fn monitor_figures(monitor: &Monitor, casino: &Casino) -> Figures {
    monitor
        .tallies(casino.name)
        .into_iter()
        .map(|t| {
            let key = (t.gaming_day.to_string(), t.game.clone());
            let figures = [
                t.rounds,
                t.void_rounds,
                t.stakes_h,
                t.paid_h,
                t.findings,
                t.findings_amount_h,
            ];
            (key, figures)
        })
        .collect()
}

/// The monitor holds of `casino` exactly what its own report states, and no mismatch.
fn assert_figures_match(monitor: &Monitor, casino: &Casino) {
    let (theirs, ours) = (report_figures(casino), monitor_figures(monitor, casino));
    assert!(!theirs.is_empty(), "{}: no rounds reported", casino.name);
    assert_eq!(ours, theirs, "{}: monitor against report", casino.name);
    let status = monitor.status(casino.name);
    let rounds: i64 = theirs.values().map(|f| f[0]).sum();
    let findings: i64 = theirs.values().map(|f| f[4]).sum();
    assert_eq!(
        (status.rounds, status.findings, status.mismatched_rounds),
        (rounds, findings, 0),
        "{status:?}"
    );
}

/// The alerts the monitor raised for `casino`: (kind, key, message).
fn alerts(monitor: &Monitor, casino: &Casino) -> Vec<(String, String, String)> {
    monitor
        .alerts(casino.name)
        .into_iter()
        .map(|a| (a.kind, a.key, a.message))
        .collect()
}

/// Both casinos running and cosigned, nginx serving their folders, the monitor following both.
struct World {
    a: Casino,
    b: Casino,
    nginx: Nginx,
    monitor: Monitor,
    witness: Witness,
    work: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let work = tempfile::tempdir().unwrap();
        let (mut a, mut b) = (Casino::new("casino-a"), Casino::new("casino-b"));
        let witness = Witness::start(work.path(), &[&a.vkey, &b.vkey]);
        for casino in [&mut a, &mut b] {
            casino.configure(&witness);
            casino.start();
        }
        a.play(1, 2, 60);
        b.play(2, 2, 60);
        a.wait_published();
        b.wait_published();
        let nginx = Nginx::serve_logs(&[(&a.folder, "casino-a"), (&b.folder, "casino-b")]);
        let monitor = Monitor::new(
            work.path(),
            "monitor",
            &[
                (&a, nginx.url_of("casino-a")),
                (&b, nginx.url_of("casino-b")),
            ],
            &witness,
        );
        World {
            a,
            b,
            nginx,
            monitor,
            witness,
            work,
        }
    }

    /// Waits until the monitor has followed both casinos to all they published.
    fn wait_both_followed(&self) -> (u64, u64) {
        let (a, b) = (self.a.wait_published(), self.b.wait_published());
        self.monitor.wait_followed(self.a.name, a);
        self.monitor.wait_followed(self.b.name, b);
        (a, b)
    }
}

#[test]
fn one_monitor_follows_two_casinos_through_nginx_and_names_each_fault_the_other_going_on() {
    let mut world = World::new();
    // Casino B's cluster copied while it is stopped: the backup a rollback restores (below).
    world.b.stop();
    let backup = world.work.path().join("casino-b-pg-data");
    let data = world.b.site.path().join("pg/data");
    copy_tree(&data, &backup);
    world.b.start();
    world.monitor.start();

    // 1. Every round of both at the monitor, its figures the casinos' own.
    world.wait_both_followed();
    assert_figures_match(&world.monitor, &world.a);
    assert_figures_match(&world.monitor, &world.b);

    killed_in_a_large_step(&mut world);
    unreachable_for_a_while(&mut world);
    let edited = verdict_changed_by_the_superuser(&mut world);
    changed_byte_of_a_published_tile(&mut world);
    rolled_back_and_signed_again(&mut world, &backup, edited);
}

/// `cp -a`: a stopped cluster's data directory, owner and modes kept.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// e. The monitor killed (SIGKILL) in the middle of a step of several bundles and started
/// again: it resumes from its last committed bundle and counts nothing twice.
fn killed_in_a_large_step(world: &mut World) {
    let (a, monitor) = (&world.a, &mut world.monitor);
    monitor.kill();
    let before = monitor.status(a.name).size as u64;
    // 3 tables × 300 rounds: more than three bundles of 256 entries, followed as one step.
    a.play(3, 3, 300);
    let size = a.wait_published();
    assert!(size - before > 3 * 256, "{before} → {size}");
    monitor.start();
    let at_kill =
        common::poll_until(
            Duration::from_secs(90),
            Duration::from_millis(2),
            || match monitor.try_status(a.name).map(|s| s.size as u64) {
                Some(s) if s > before => Ok(s),
                other => Err(format!("followed {other:?}:\n{}", monitor.log())),
            },
        );
    monitor.kill();
    let at_kill = at_kill.max(monitor.status(a.name).size as u64);
    assert!(
        at_kill < size,
        "the monitor was to be killed inside the step ({before} → {size}), it had followed {at_kill}"
    );
    assert_eq!(
        at_kill % 256,
        0,
        "killed between two bundles committed whole"
    );
    monitor.start();
    monitor.wait_followed(a.name, size);
    assert_figures_match(monitor, a);
    assert!(alerts(monitor, a).is_empty(), "{:?}", alerts(monitor, a));
}

/// d. Both casinos unreachable for a while (nginx stopped) while they go on appending: the
/// monitor says it cannot reach them and keeps what it had; once nginx is back it catches up,
/// nothing skipped.
fn unreachable_for_a_while(world: &mut World) {
    let held = (
        world.monitor.status(world.a.name).size,
        world.monitor.status(world.b.name).size,
    );
    world.nginx.stop();
    world.a.play(4, 1, 40);
    world.b.play(5, 1, 40);
    let sizes = (world.a.wait_published(), world.b.wait_published());
    for casino in [&world.a, &world.b] {
        common::poll_until(Duration::from_secs(30), Duration::from_millis(100), || {
            let s = world.monitor.status(casino.name);
            match &s.last_error {
                Some(e) if e.contains("cannot be reached") && s.failures > 0 => Ok(()),
                _ => Err(format!("{s:?}")),
            }
        });
    }
    assert_eq!(
        (
            world.monitor.status(world.a.name).size,
            world.monitor.status(world.b.name).size
        ),
        held,
        "nothing followed while unreachable"
    );
    world.nginx.start();
    world.monitor.wait_followed(world.a.name, sizes.0);
    world.monitor.wait_followed(world.b.name, sizes.1);
    for casino in [&world.a, &world.b] {
        assert_figures_match(&world.monitor, casino);
        let s = world.monitor.status(casino.name);
        assert_eq!((s.last_error, s.failures), (None, 0), "{}", casino.name);
    }
}

/// The ledger index of one round of casino `casino` (SQL's `which` of the indexes of its
/// adjudications matching `condition`).
fn round_index(casino: &Casino, which: &str, condition: &str) -> i64 {
    casino
        .psql(&format!(
            "SELECT {which}(ledger_index) FROM adjudications WHERE {condition}"
        ))
        .parse()
        .unwrap()
}

/// Adds 500 Kč to what the casino's stored verdict of each round says was paid, as the
/// cluster's superuser (the append-only trigger disabled for it, and enabled again).
fn superuser_raises_paid(casino: &Casino, rounds: &[i64]) {
    let list: Vec<String> = rounds.iter().map(i64::to_string).collect();
    casino.psql(&format!(
        "BEGIN; ALTER TABLE adjudications DISABLE TRIGGER adjudications_append_only; \
         UPDATE adjudications SET paid_h = paid_h + 50000 WHERE ledger_index IN ({}); \
         ALTER TABLE adjudications ENABLE TRIGGER adjudications_append_only; COMMIT;",
        list.join(",")
    ));
}

/// b. A verdict changed by casino B's database superuser. The monitor compares the casino's
/// verdict lines when it reads a bundle, and the publisher writes a partial bundle's lines from
/// the stored rows each time it publishes the bundle wider (the full one from what ingest's
/// writer handed over as it committed, docs/TILES.md). So:
/// - a round whose lines the monitor has not read yet, changed before the publisher writes its
///   bundle again (more rounds arrive and widen it), is named as a mismatch;
/// - a round the monitor had followed already is not: an incremental follower never reads a
///   bundle's lines again (and a full bundle published before the change keeps the old line for
///   every reader). What the superuser changed after publication shows only in the casino's own
///   reports, which then differ from the monitor's figures: that difference is the evidence.
///
/// The two rounds edited, the one the monitor had read and the one it had not.
fn verdict_changed_by_the_superuser(world: &mut World) -> [i64; 2] {
    let (b, monitor) = (&world.b, &mut world.monitor);
    monitor.kill();
    let followed = monitor.status(b.name).size;
    b.play(6, 1, 30);
    b.wait_published();
    let seen = round_index(b, "max", &format!("ledger_index < {followed}"));
    let unseen = round_index(b, "max", "true");
    assert!(unseen >= followed, "{unseen} {followed}");
    superuser_raises_paid(b, &[seen, unseen]);
    // More rounds: the publisher writes the edge bundle's lines again, from the changed rows.
    b.play(7, 1, 20);
    let size = b.wait_published();
    let bundle = Tile {
        kind: TileKind::Entries,
        index: unseen as u64 / 256,
        width: 256.min(size - unseen as u64 / 256 * 256) as u16,
    };
    let lines_path = format!(
        "verdicts/{}",
        bundle.path().strip_prefix("tile/entries/").unwrap()
    );
    let lines = std::fs::read_to_string(b.folder.join(&lines_path)).unwrap();
    assert!(
        lines.contains(&format!("{{\"index\":{unseen},")),
        "{lines_path}"
    );
    monitor.start();
    monitor.wait_followed(b.name, size);
    let mismatches = monitor.mismatches(b.name);
    assert_eq!(mismatches.len(), 1, "{mismatches:?}");
    let m = &mismatches[0];
    assert_eq!(
        (m.ledger_index, m.field.as_str()),
        (unseen, "paid_h"),
        "{m:?}"
    );
    // The casino's line says 500 Kč more than the signed round paid.
    assert_eq!(
        m.casino_value.as_i64().unwrap() - m.monitor_value.as_i64().unwrap(),
        50_000,
        "{m:?}"
    );
    let raised = alerts(monitor, b);
    assert_eq!(raised.len(), 1, "{raised:?}");
    assert_eq!(
        (raised[0].0.as_str(), raised[0].1.as_str()),
        ("verdict_mismatch", format!("mismatch:{unseen}").as_str())
    );
    assert!(
        raised[0].2.contains(&format!("entry {unseen}")),
        "{raised:?}"
    );
    // The casino's report sums the edited rows: 2 × 500 Kč of payouts more than the monitor
    // counts from the signed rounds, and nothing else differs.
    let (theirs, ours) = (report_figures(b), monitor_figures(monitor, b));
    let paid = |f: &Figures| f.values().map(|v| v[3]).sum::<i64>();
    assert_eq!(paid(&theirs) - paid(&ours), 2 * 50_000);
    let without_paid =
        |f: &Figures| -> Vec<_> { f.values().map(|v| (v[0], v[1], v[2], v[4], v[5])).collect() };
    assert_eq!(without_paid(&theirs), without_paid(&ours));
    assert!(monitor.mismatches(world.a.name).is_empty());
    assert!(alerts(monitor, &world.a).is_empty());
    [seen, unseen]
}

/// a. A byte changed in a level-0 hash tile of casino A the monitor has not read yet, in the
/// folder nginx serves: the tile named in one alert, nothing of A followed past it, B followed
/// on meanwhile; the byte put back, A is followed on, every round once.
fn changed_byte_of_a_published_tile(world: &mut World) {
    let (a, b) = (&world.a, &world.b);
    let monitor = &mut world.monitor;
    monitor.kill();
    let followed = monitor.status(a.name).size as u64;
    // 2 tables × 260 rounds: more than 2 × 256 entries, so a full level-0 tile lies wholly
    // beyond what the monitor followed.
    a.play(8, 2, 260);
    let size = a.wait_published();
    let index = followed.div_ceil(256);
    assert!((index + 1) * 256 <= size, "{followed} → {size}");
    let tile = Tile {
        kind: TileKind::Hashes(0),
        index,
        width: 256,
    };
    let file = a.folder.join(tile.path());
    let original = std::fs::read(&file).unwrap();
    let mut changed = original.clone();
    changed[100 * 32 + 7] ^= 0x01;
    std::fs::write(&file, &changed).unwrap();
    b.play(9, 1, 20);
    let size_b = b.wait_published();
    monitor.start();
    monitor.wait_followed(b.name, size_b);
    let tiles_alert =
        common::poll_until(Duration::from_secs(30), Duration::from_millis(100), || {
            let raised = alerts(monitor, a);
            match raised.iter().find(|(kind, ..)| kind == "tiles") {
                Some(alert) => Ok(alert.clone()),
                None => Err(format!("{raised:?}\n{}", monitor.log())),
            }
        });
    assert!(tiles_alert.2.contains(&tile.path()), "{tiles_alert:?}");
    let s = monitor.status(a.name);
    assert_eq!(
        s.size as u64, followed,
        "nothing past the wrong tile: {s:?}"
    );
    assert!(
        s.last_error
            .as_deref()
            .is_some_and(|e| e.contains(&tile.path())),
        "{s:?}"
    );
    // B followed on and is as its report says (but for its edited verdicts, above).
    assert_eq!(monitor.status(b.name).mismatched_rounds, 1);
    // The byte put back: A followed on, every round once; the alert stays one.
    std::fs::write(&file, &original).unwrap();
    monitor.wait_followed(a.name, size);
    assert_figures_match(monitor, a);
    assert_eq!(alerts(monitor, a), vec![tiles_alert]);
}

/// c. Casino B's ledger restored from the backup taken near the start (its cluster's data
/// directory copied while stopped), the loss accepted on the record (`dozor log
/// accept-rollback`), its tiles published again from the restored ledger and new rounds signed
/// under the same key: a history other than the one the monitor followed. The monitor keeps
/// both signed notes, alerts and halts B; A is followed on.
fn rolled_back_and_signed_again(world: &mut World, backup: &std::path::Path, edited: [i64; 2]) {
    let held = world.wait_both_followed().1;
    let held_note = world.b.published_note().unwrap();
    // A second monitor of B, which will be away while B is rolled back: it holds B's tree now.
    let url_b = world.nginx.url_of("casino-b");
    let away = Monitor::new(
        world.work.path(),
        "away",
        &[(&world.b, url_b)],
        &world.witness,
    );
    away.command().arg("--once").succeeds();
    assert_eq!(away.status(world.b.name).size as u64, held);
    // Reading B's first bundle for the first time, it reads the verdict lines the publisher
    // wrote after the superuser's edit (the bundle was still partial then): both edited rounds
    // are named, where the monitor that had read the first one before the edit names only the
    // other.
    let named: Vec<i64> = away
        .mismatches(world.b.name)
        .iter()
        .map(|m| m.ledger_index)
        .collect();
    assert_eq!(named, edited);
    let b = &mut world.b;
    b.stop();
    let data = b.site.path().join("pg/data");
    std::fs::remove_dir_all(&data).unwrap();
    copy_tree(backup, &data);
    let witness_file = b.site.path().join("checkpoints.jsonl");
    let out = b
        .site
        .dozor()
        .args(["log", "accept-rollback", "--witness"])
        .arg(&witness_file)
        .args(["--reason", "disk failure; restored from the cold copy"])
        .succeeds();
    assert!(out.status.success());
    // The folder holds the lost history: the publisher refuses it. The operator moves it aside
    // and the server publishes the restored ledger from nothing.
    std::fs::rename(&b.folder, b.site.path().join("site/tiles.before-rollback")).unwrap();
    b.start();
    let restored =
        common::poll_until(
            Duration::from_secs(30),
            Duration::from_millis(100),
            || match b.published_note().as_deref().and_then(size_of) {
                Some(s) => Ok(s),
                None => Err(b.server().log()),
            },
        );
    assert!(restored < held, "{restored} {held}");
    let monitor = &world.monitor;
    let s = common::poll_until(Duration::from_secs(30), Duration::from_millis(100), || {
        let s = monitor.status(b.name);
        match &s.halted {
            Some(_) => Ok(s),
            None => Err(format!("{s:?}\n{}", monitor.log())),
        }
    });
    assert!(s.halted.unwrap().contains("rolled back"));
    // New rounds signed under the same key: B stays halted; A is followed on.
    b.play(10, 1, 20);
    world.a.play(11, 1, 20);
    let size_a = world.a.wait_published();
    monitor.wait_followed(world.a.name, size_a);
    assert_figures_match(monitor, &world.a);
    let raised = alerts(monitor, b);
    let rollback: Vec<_> = raised.iter().filter(|(k, ..)| k == "rollback").collect();
    assert_eq!(rollback.len(), 1, "{raised:?}");
    let evidence = monitor
        .alerts(b.name)
        .into_iter()
        .find(|a| a.kind == "rollback")
        .unwrap()
        .evidence;
    assert_eq!(evidence["held"].as_str(), Some(held_note.as_str()));
    let seen = evidence["seen"].as_str().unwrap();
    // The restored server signs again as it starts (a checkpoint or two): one of those.
    let seen_size = size_of(seen).unwrap();
    assert!(
        (restored..held).contains(&seen_size),
        "{restored} ≤ {seen_size} < {held}"
    );
    let mut conn = dozor_monitor::store::connection::connect(&monitor.url).unwrap();
    assert_eq!(
        dozor_monitor::store::alerts::forks(&mut conn, b.name).unwrap(),
        1
    );
    assert_eq!(monitor.status(b.name).size as u64, held);

    // The monitor that was away meets B's new history only once it is longer than the tree it
    // held (the witness cosigns none of it): the signed tree does not contain the held one, a
    // fork; both notes kept, B halted.
    b.play(12, 2, 100);
    let longer = b.wait_signed(false);
    assert!(longer > held, "{longer} {held}");
    let out = away.command().arg("--once").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_eq!(
        said.trim(),
        format!(
            "casino-b: halted: the log forked: the signed tree of {longer} entries does not contain the one of {held}"
        )
    );
    let raised = alerts(&away, b);
    let kinds: Vec<&str> = raised.iter().map(|(kind, ..)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["verdict_mismatch", "verdict_mismatch", "not_extending"],
        "{raised:?}"
    );
    let mut conn = dozor_monitor::store::connection::connect(&away.url).unwrap();
    assert_eq!(
        dozor_monitor::store::alerts::forks(&mut conn, b.name).unwrap(),
        1
    );
    // The witness cosigned none of B's new history: the largest tree of B it cosigned is the
    // one the monitors held, although B has signed a longer one since.
    world.witness.stop();
    let cosigned = world.witness.cosigned("casino-b.test/ledger");
    let largest = cosigned.iter().filter_map(|c| c["size"].as_u64()).max();
    assert_eq!(largest, Some(held), "{cosigned:?}");
}
