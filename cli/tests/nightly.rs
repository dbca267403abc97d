#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The nightly job: a night's reports written and sealed once (a second run, by the command
//! line, appends nothing), a quiet day's report says so, nights missed are found, and a report
//! changed after it was sealed is caught by `verify` on the database and on an export.

mod common;

use chrono::{Duration, NaiveDate, NaiveTime, Utc};
use common::*;
use dozor_verify::{verify_export, VerifyOptions};
use ledger::storage::connect;
use reports::inspection::ExportRequest;
use reports::nightly::{NightOutcome, NightSealed, NightlyJob};
use rules::gaming_day::GamingDayClock;
use serde_json::{json, Value};

const DAY: &str = "2026-11-20";

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[actix_web::test]
async fn a_night_is_sealed_once_and_a_changed_report_is_caught() {
    let (_state, url, app) = api_app().await;
    let k = key(1);
    register_table(&app, registration("R01", &k)).await;
    for seq in 1..=3 {
        let record = spin("R01", seq, 17, json!([straight("b", 17, 10_000, 360_000)]));
        submitted_record(&app, record, &k).await;
    }
    let data = tempfile::tempdir().unwrap();
    let clock = GamingDayClock::default();
    let plans = rules::PlanBook::builtin().unwrap();
    let sealer = operator();
    let job = NightlyJob {
        clock: &clock,
        plans: &plans,
        sealer: &sealer,
        actor: "cli:tests",
        data_dir: data.path(),
    };
    let day: NaiveDate = DAY.parse().unwrap();
    let mut conn = connect(&url).unwrap();
    let before = ledger_size(&url);
    let outcome = job.run(&mut conn, day, Utc::now()).unwrap();
    let NightOutcome::Published(NightSealed {
        files,
        rounds,
        checkpoint_size,
        ..
    }) = outcome
    else {
        panic!("{outcome:?}")
    };
    // daily CSV and JSON, month-to-date RTP CSV and page, shoes, fantasy, time collection,
    // table audit, wheels, summary.
    assert_eq!((files, rounds), (10, 3));
    assert_eq!(ledger_size(&url), before + 10);
    assert_eq!(checkpoint_size, before + 10);
    let night = data.path().join("reports/nightly").join(DAY);
    let summary = read_json(&night.join("night.json"));
    assert_eq!(summary["rounds"], 3);
    assert!(summary["note"].is_null());
    assert_eq!(summary["files"].as_array().unwrap().len(), 9);
    let daily = read_json(&night.join("daily.json"));
    assert_eq!(daily["gaming_day"], DAY);
    assert_eq!(daily["rounds"], 3);
    let page = std::fs::read_to_string(night.join("rtp-month-to-date.html")).unwrap();
    assert!(page.contains("<svg class=\"rtp-chart\""));

    // Again, by the command line as a systemd timer runs it: done before, nothing appended.
    let key_file = data.path().join("operator.key");
    std::fs::write(&key_file, sealer.private_key()).unwrap();
    let out = dozor()
        .args(["--data-dir", &data.path().display().to_string()])
        .args(["report", "nightly", "--day", DAY])
        .env("DATABASE_URL", &url)
        .env_remove("DOZOR_OPERATOR_KEY")
        .succeeds();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("{DAY}: done before; nothing changed")
    );
    assert_eq!(ledger_size(&url), before + 10);

    // The next day had no play: its report says so.
    let quiet = day.succ_opt().unwrap();
    assert!(matches!(
        job.run(&mut conn, quiet, Utc::now()).unwrap(),
        NightOutcome::Published(NightSealed { rounds: 0, .. })
    ));
    let summary = read_json(
        &data
            .path()
            .join(format!("reports/nightly/{quiet}/night.json")),
    );
    assert_eq!(summary["note"], "no rounds were played on this gaming day");
    assert_eq!(
        read_json(
            &data
                .path()
                .join(format!("reports/nightly/{quiet}/daily.json"))
        )["note"],
        "no rounds were played on this gaming day"
    );

    // Nights are due once their day has closed: the ledger started today (the tables were
    // registered now), so today's night is pending only after it is due.
    let at = NaiveTime::from_hms_opt(6, 30, 0).unwrap();
    let today = clock.day_of(Utc::now());
    // The nights after the quiet one up to yesterday are due (as far back as a catch-up goes);
    // the two done are not.
    // What is due at `t`: the nights after the quiet one whose day has closed by `t`, within
    // the catch-up window of `t`'s gaming day, and whose run time has come.
    let due_by = |t: chrono::DateTime<Utc>| -> Vec<NaiveDate> {
        let today_then = clock.day_of(t);
        quiet
            .succ_opt()
            .unwrap()
            .iter_days()
            .take_while(|d| *d < today_then)
            .filter(|d| {
                *d >= today_then - Duration::days(reports::nightly::CATCH_UP_DAYS)
                    && reports::nightly::due_at(&clock, at, *d) <= t
            })
            .collect()
    };
    let now = Utc::now();
    assert_eq!(job.pending(&mut conn, at, now).unwrap(), due_by(now));
    // Once tomorrow's night is due, today's and tomorrow's are pending too (and any night
    // that was not yet due a moment ago: between the day's start and its run time).
    let later = reports::nightly::due_at(&clock, at, today + Duration::days(1));
    let then_due = due_by(later);
    assert!(
        then_due.ends_with(&[today, today + Duration::days(1)]),
        "{then_due:?}"
    );
    assert_eq!(job.pending(&mut conn, at, later).unwrap(), then_due);

    // verify on the database checks the files against their seals.
    let data_arg = data.path().display().to_string();
    let (code, report, stderr) = verify_database_with(&url, &["--data-dir", &data_arg]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(report["nightly_reports_matching"], 20);

    // An export carries the night's files; offline verify checks them against the seals.
    let export_dir = tempfile::tempdir().unwrap();
    let export = export_dir.path().join("export");
    let request = ExportRequest {
        nightly_from: Some(data.path()),
        ..ExportRequest::new(
            &clock,
            &sealer,
            "cli:tests",
            (day, quiet),
            &export,
            Utc::now(),
        )
    };
    reports::inspection::write_export(&mut conn, &request, &mut |_, _| {}).unwrap();
    let options = || VerifyOptions::default();
    verify_export(&export, &[sealer.verifier()], options(), |_, _| {}).unwrap();

    // Someone edits a sealed report under the data directory.
    let daily_csv = night.join("daily.csv");
    let mut text = std::fs::read_to_string(&daily_csv).unwrap();
    assert!(text.contains("1080000"), "{text}");
    text = text.replacen("1080000", "108000", 1);
    std::fs::write(&daily_csv, &text).unwrap();
    let (code, report, stderr) = verify_database_with(&url, &["--data-dir", &data_arg]);
    assert_eq!(code, Some(1), "{stderr}");
    let changed = &report["nightly_reports_changed"][0];
    assert_eq!(changed["name"], format!("reports/nightly/{DAY}/daily.csv"));
    assert!(
        changed["problem"]
            .as_str()
            .unwrap()
            .starts_with("SHA-256 is"),
        "{changed}"
    );
    assert!(stderr.contains("reports CHANGED"), "{stderr}");

    // The same edit inside an export, with its MANIFEST recomputed, is caught offline.
    let exported = export.join(format!("reports/nightly/{DAY}/daily.csv"));
    std::fs::write(&exported, &text).unwrap();
    fix_manifest(&export);
    let error = verify_export(&export, &[sealer.verifier()], options(), |_, _| {}).unwrap_err();
    assert!(
        error.to_string().contains("changed after it was published"),
        "{error}"
    );
    // And a night's report left out of the export is named.
    std::fs::remove_file(&exported).unwrap();
    fix_manifest(&export);
    let error = verify_export(&export, &[sealer.verifier()], options(), |_, _| {}).unwrap_err();
    assert!(
        error.to_string().contains("missing from the export"),
        "{error}"
    );
}

/// The server was down for the last nights: its scheduler seals each of them, oldest first, as
/// soon as it starts, and a second start finds nothing left to do.
#[actix_web::test]
async fn the_server_catches_up_the_nights_it_missed_at_start() {
    let (state, url, app) = api_app().await;
    let clock = GamingDayClock::default();
    let now = Utc::now();
    let today = clock.day_of(now);
    let k = key(1);
    let mut table = registration("R01", &k);
    table["valid_from"] = json!((clock.start_of(today - Duration::days(4))).to_rfc3339());
    register_table(&app, table).await;
    // One spin at noon of each of the two days before yesterday; yesterday was quiet.
    let played = [3, 2].map(|back| today - Duration::days(back));
    for (seq, day) in (1..).zip(played) {
        let mut record = spin("R01", seq, 17, json!([straight("b", 17, 10_000, 360_000)]));
        record["played_at"] = json!((clock.start_of(day) + Duration::hours(6)).to_rfc3339());
        submitted_record(&app, record, &k).await;
    }
    let data = tempfile::tempdir().unwrap();
    // Due as soon as a gaming day closes, so yesterday's night is due too.
    let schedule = api::nightly::NightlySchedule {
        at: NaiveTime::from_hms_opt(clock.start_hour, 0, 0).unwrap(),
        data_dir: data.path().to_path_buf(),
        checkpoint_witness: None,
    };
    let missed = [played[0], played[1], today - Duration::days(1)];
    let summary_of = |day: NaiveDate| {
        data.path().join(format!(
            "reports/nightly/{day}/{}",
            reports::night_names::SUMMARY
        ))
    };
    // The ledger checked once from the command line (the whole of it, the first time).
    std::fs::write(data.path().join("operator.key"), operator().private_key()).unwrap();
    let first = dozor()
        .args(["verify", "--since-last", "--data-dir"])
        .arg(data.path())
        .env("DATABASE_URL", &url)
        .env_remove("DOZOR_OPERATOR_KEY")
        .succeeds();
    let first: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(first["scope"], "full", "{first}");
    let first_mark = first["mark_index"].as_u64().unwrap();
    let scheduler = api::nightly::spawn(state.clone(), schedule.clone()).unwrap();
    // After the nights, the night's check of the ledger: what the nights sealed since the
    // first check, recorded as a verification mark by the scheduler, and kept beside the
    // reports.
    let mark_file = data.path().join(ledger::storage::nightly_check::MARK_FILE);
    let kept_index = || read_json(&mark_file)["index"].as_u64().unwrap();
    let waited = std::time::Instant::now();
    while !(summary_of(missed[2]).exists() && kept_index() > first_mark)
        && waited.elapsed() < std::time::Duration::from_secs(120)
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    scheduler.stop();
    let mark_index = kept_index();
    let row = ledger::storage::reads::entry(&mut connect(&url).unwrap(), mark_index)
        .unwrap()
        .unwrap();
    let entry: Value = serde_json::from_slice(&row.entry).unwrap();
    let mark = &entry["envelope"]["record"];
    assert_eq!(mark["type"], "ledger_verified", "{mark}");
    assert_eq!(mark["scope"], "incremental", "{mark}");
    assert_eq!(mark["actor"], "server:nightly", "{mark}");
    assert_eq!(mark["from"], first["entries_checked"], "{mark}");
    assert!(mark["failure"].is_null(), "{mark}");
    assert!(mark["to"].as_u64().unwrap() <= mark_index, "{mark}");
    let rounds: Vec<Value> = missed
        .iter()
        .map(|day| read_json(&summary_of(*day))["rounds"].clone())
        .collect();
    assert_eq!(rounds, [json!(1), json!(1), json!(0)]);
    // Ten files a night, each sealed once, oldest night first.
    let sealed =
        ledger::storage::published_reports::latest_publications(&mut connect(&url).unwrap())
            .unwrap();
    let night_index = |day: NaiveDate| sealed[&format!("reports/nightly/{day}/night.json")].0;
    assert!(night_index(missed[0]) < night_index(missed[1]));
    assert!(night_index(missed[1]) < night_index(missed[2]));
    assert_eq!(
        sealed
            .keys()
            .filter(|n| n.starts_with("reports/nightly/"))
            .count(),
        3 * 10
    );

    // Afterwards nothing is due, and a night run again appends nothing.
    let size = ledger_size(&url);
    let job = NightlyJob {
        clock: &clock,
        plans: &state.plans,
        sealer: &state.operator,
        actor: "cli:tests",
        data_dir: data.path(),
    };
    let mut conn = connect(&url).unwrap();
    assert_eq!(
        job.pending(&mut conn, schedule.at, Utc::now()).unwrap(),
        vec![]
    );
    assert_eq!(
        job.run(&mut conn, missed[0], Utc::now()).unwrap(),
        NightOutcome::AlreadyDone { day: missed[0] }
    );
    assert_eq!(ledger_size(&url), size);
}
