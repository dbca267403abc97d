//! The validator against packages made by hand and edited a fault at a time.

use super::fields::fields_of;
use super::*;
use crate::mf::package::render;
use rules::gaming_day::GamingDayClock;
use rules::gaming_day::Month;

const PACKAGE: &str = "12345679-M-202610-Z-kasino_1-01";
const CREATED: &str = "2026-11-02T10:00:00.0+01:00";

fn settings() -> ValidationSettings {
    ValidationSettings {
        now: "2026-11-25T00:00:00Z".parse().unwrap(),
        clock: GamingDayClock::default(),
    }
}

fn rows(file: &str) -> Vec<Vec<(&'static str, String)>> {
    let row = |pairs: &[(&'static str, &str)]| {
        pairs
            .iter()
            .map(|(k, v)| (*k, (*v).to_owned()))
            .collect::<Vec<_>>()
    };
    let record = [
        ("IDZaznamPSTB", "12345679-S-R01-0"),
        ("IDPSTB", "12345679-R01"),
    ];
    let with = |extra: &[(&'static str, &str)]| {
        let mut all = record.to_vec();
        all.extend_from_slice(extra);
        row(&all)
    };
    match file {
        "provozovatel.csv" => vec![row(&[
            ("IDProvozovatel", "12345679"),
            ("ProvozovatelNazev", "Kasino a.s."),
        ])],
        "misto.csv" => vec![row(&[
            ("IDMisto", "12345679-kasino_1"),
            ("MistoNazev", "Kasino Praha"),
            ("IDProvozovatel", "12345679"),
            ("PSC", "11000"),
            ("Obec", "Praha"),
            ("Kraj", "PHA"),
            ("SidloKodRuian", "21723265"),
        ])],
        "evidence_her.csv" => vec![row(&[
            ("IDHra", "12345679-roulette"),
            ("IDProvozovatel", "12345679"),
            ("HraNazev", "Ruleta"),
            ("HraDruh", "Z"),
        ])],
        "pokladna_stul_turnaj_bingo.csv" => vec![with(&[
            ("PokladnaStulTurnajBingo", "S"),
            ("IDMisto", "12345679-kasino_1"),
            ("IDHra", "12345679-roulette"),
            ("CistyHerniVysledek", "-32500,00"),
            ("MenaKod", "CZK"),
            ("ProvozOd", "2026-10-01T18:00:00.0+02:00"),
            ("ProvozDo", "2026-10-02T04:00:00.0+02:00"),
        ])],
        "prostredek.csv" => vec![with(&[
            ("IDZaznamProstredek", "12345679-S-R01-0-1"),
            ("Prostredek", "1"),
            ("MenaKod", "CZK"),
            ("StavVysePocatek", "100000,00"),
            ("StavVyseKonec", "62500,00"),
        ])],
        "pstb_transakce.csv" => vec![with(&[
            ("IDTransakce", "12345679-S-R01-0-J2"),
            ("TransakceTyp", "J2"),
            ("TransakceVyse", "20000,00"),
            ("MenaKod", "CZK"),
            ("TransakceZpusob", "1"),
        ])],
        "hra_turnaj_bingo.csv" => vec![with(&[
            ("IDJednaHraCastTurnaje", "12345679-S-R01-0-roulette"),
            ("ZahajeniCas", "2026-10-01T18:00:00.0+02:00"),
            ("UhrnSazkyVyse", "3500,00"),
            ("UhrnVyhryVyse", "36000,00"),
            ("MenaKod", "CZK"),
        ])],
        "mozna_vyhra_stul_bingo.csv" => vec![with(&[
            ("IDMoznaVyhra", "12345679-S-R01-0-MV"),
            ("MoznaVyhraNazev", "Ruleta"),
            ("MoznaVyhraVyseKonec", "900000,00"),
            ("MenaKod", "CZK"),
        ])],
        "mozna_vyhra_pro_hru.csv" => vec![row(&[
            ("IDMoznaVyhraProHru", "12345679-roulette-2026-10-01"),
            ("IDHra", "12345679-roulette"),
            ("IDMisto", "12345679-kasino_1"),
            ("MoznaVyhraProHruVysePocatek", "900000,00"),
            ("MoznaVyhruProHruVyseKonec", "900000,00"),
            ("MenaKod", "CZK"),
            ("Datum", "2026-10-01"),
        ])],
        _ => vec![],
    }
}

/// A valid October package with one row in each file.
fn package() -> PackageSource {
    let schema = Schema::embedded().unwrap();
    let name = PackageName::parse(PACKAGE).unwrap();
    assert_eq!(name.month, Month::parse("2026-10").unwrap());
    let files = schema
        .files_for("M", "Z")
        .into_iter()
        .map(|file| {
            let bytes = render(schema, &name, file, CREATED, &rows(file)).unwrap();
            (file.to_owned(), bytes)
        })
        .collect();
    PackageSource {
        name: PACKAGE.into(),
        files,
        other_entries: vec![],
    }
}

fn errors(source: &PackageSource) -> Vec<MfError> {
    validate(Schema::embedded().unwrap(), source, &settings())
}

fn codes(source: &PackageSource) -> Vec<&'static str> {
    errors(source).iter().map(|e| e.code).collect()
}

/// The package with `file`'s text changed by `edit`.
fn edited(file: &str, edit: impl FnOnce(String) -> String) -> PackageSource {
    let mut source = package();
    let entry = source.files.iter_mut().find(|(n, _)| n == file).unwrap();
    entry.1 = edit(String::from_utf8(entry.1.clone()).unwrap()).into_bytes();
    source
}

/// Replacing `from` with `to` in `file` breaks the package with one error, of `code` in `field`.
fn assert_refused(file: &str, from: &str, to: &str, code: &str, field: &str) {
    let e = the_error(&edited(file, |t| t.replace(from, to)));
    assert_eq!((e.code, e.field.as_deref()), (code, Some(field)));
}

/// The one error of a broken package (besides the file's own `ERR_FILE`).
fn the_error(source: &PackageSource) -> MfError {
    let mut errors: Vec<MfError> = errors(source)
        .into_iter()
        .filter(|e| e.code != "ERR_FILE")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors.remove(0)
}

#[test]
fn a_well_formed_package_is_valid() {
    assert_eq!(errors(&package()), vec![]);
    assert_eq!(
        ok_line("2026-11-02T09:03:04Z".parse().unwrap()),
        "OK: 20261102-100304"
    );
}

#[test]
fn lf_line_ends_are_refused() {
    let e = the_error(&edited("misto.csv", |t| t.replace("\r\n", "\n")));
    assert_eq!((e.code, e.line), ("ERR_LINE_INVALID_CSV", Some(1)));
    assert_eq!(e.file.as_deref(), Some("misto.csv"));
    // One line with LF alone among CRLF lines is found at its line.
    let e = the_error(&edited("evidence_her.csv", |t| {
        let mut lines: Vec<&str> = t.split("\r\n").collect();
        let last = lines.len() - 2;
        let joined = format!("{}\n{}", lines[last - 1], lines[last]);
        lines.splice(last - 1..=last, [joined.as_str()]);
        lines.join("\r\n")
    }));
    assert_eq!((e.code, e.line), ("ERR_LINE_INVALID_CSV", Some(2)));
}

#[test]
fn fields_are_read_as_the_ministrys_validator_reads_them() {
    assert_eq!(fields_of("a;b;").unwrap(), ["a", "b", ""]);
    assert_eq!(
        fields_of("\"a;b\";\"say \"\"hi\"\"\"").unwrap(),
        ["a;b", "say \"hi\""]
    );
    assert_eq!(fields_of("").unwrap(), [""]);
    for bad in ["a;b\"c;d", "\"x;y", "\"x\"y;z", "ab\""] {
        assert!(fields_of(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_stray_quote_makes_the_line_unreadable() {
    let e = the_error(&edited("misto.csv", |t| {
        t.replacen(";Praha", ";Pra\"ha", 1)
    }));
    assert_eq!((e.code, e.line), ("ERR_LINE_INVALID_CSV", Some(3)), "{e:?}");
}

#[test]
fn missing_and_extra_files_are_named() {
    let mut source = package();
    source.files.retain(|(n, _)| n != "prostredek.csv");
    let e = the_error(&source);
    assert_eq!(
        (e.code, e.field.as_deref()),
        ("ERR_PKG_MISSING_FILE", Some("prostredek.csv"))
    );
    let mut source = package();
    source.files.push(("notes.txt".into(), b"x".to_vec()));
    let e = the_error(&source);
    assert_eq!(
        (e.code, e.field.as_deref()),
        ("ERR_PKG_EXTRA_FILES", Some("notes.txt"))
    );
    // What the Ministry's validator writes into a package folder is passed over.
    let mut source = package();
    for own in [
        "validation-report.csv",
        "validation-errors.csv",
        "file-validation-error.txt",
    ] {
        source.files.push((own.into(), b"x".to_vec()));
    }
    assert_eq!(errors(&source), vec![]);
    // The exchange rates are for the quarter's last month only.
    let mut source = package();
    source.files.push(("mena_kurs.csv".into(), vec![]));
    assert_eq!(the_error(&source).code, "ERR_PKG_EXTRA_FILES");
}

#[test]
fn a_wrong_header_is_refused() {
    let e = the_error(&edited("pstb_transakce.csv", |t| {
        t.replace("TransakceTyp", "TypTransakce")
    }));
    assert_eq!((e.code, e.line), ("ERR_LINE_BAD_HEADER", Some(2)));
    // Case does not matter, as for the Ministry.
    assert_eq!(
        errors(&edited("pstb_transakce.csv", |t| t
            .replace("TransakceTyp", "transakcetyp"))),
        vec![]
    );
}

#[test]
fn a_decimal_point_is_refused() {
    let e = the_error(&edited("pstb_transakce.csv", |t| {
        t.replace("20000,00", "20000.00")
    }));
    assert_eq!(e.code, "ERR_FIELD_BAD_FORMAT_RE");
    assert_eq!(
        (e.line, e.field.as_deref()),
        (Some(3), Some("TransakceVyse"))
    );
}

#[test]
fn a_value_outside_its_codebook_is_refused() {
    assert_refused(
        "pstb_transakce.csv",
        ";J2;",
        ";X9;",
        "ERR_FIELD_CODEBOOK",
        "TransakceTyp",
    );
    assert_refused("misto.csv", ";PHA;", ";PRG;", "ERR_FIELD_CODEBOOK", "Kraj");
}

#[test]
fn an_id_without_the_operators_prefix_is_refused() {
    assert_refused(
        "evidence_her.csv",
        "12345679-roulette",
        "roulette",
        "ERR_FIELD_CTX_OPERATORID_PREFIX",
        "IDHra",
    );
    let e = the_error(&edited("provozovatel.csv", |t| {
        t.replace("\r\n12345679;", "\r\n87654321;")
    }));
    assert_eq!(e.code, "ERR_FIELD_CTX_OPERTORID");
}

#[test]
fn a_time_outside_the_month_is_refused() {
    // Before the month's first gaming day starts (06:00 on 1 October).
    assert_refused(
        "pokladna_stul_turnaj_bingo.csv",
        "2026-10-01T18:00:00.0+02:00",
        "2026-10-01T05:59:59.9+02:00",
        "ERR_FIELD_CTX_PKG_TIMESPAN",
        "ProvozOd",
    );
    assert_refused(
        "mozna_vyhra_pro_hru.csv",
        ";2026-10-01",
        ";2026-11-01",
        "ERR_FIELD_CTX_PKG_TIMESPAN",
        "Datum",
    );
    // Without its one fractional digit a time is malformed, not outside.
    assert_refused(
        "pokladna_stul_turnaj_bingo.csv",
        "2026-10-02T04:00:00.0+02:00",
        "2026-10-02T04:00:00+02:00",
        "ERR_FIELD_BAD_FORMAT_RE",
        "ProvozDo",
    );
}

#[test]
fn a_wrong_package_name_is_refused() {
    for name in [
        "12345679-M-202613-Z-kasino_1-01",
        "12345679-M-202610-Z-kasino-1-01",
        "package",
    ] {
        let mut source = package();
        source.name = name.into();
        assert_eq!(codes(&source), ["ERR_PKG"], "{name}");
    }
    // A game type outside the codebook.
    let mut source = package();
    source.name = "12345679-M-202610-Q-kasino_1-01".into();
    assert_eq!(codes(&source), ["ERR_PKG"]);
}

#[test]
fn metadata_lines_are_checked_field_by_field() {
    for (from, to, code) in [
        ("#12345679", "12345679", "ERR_LINE_INVALID_HASH"),
        (";1.0\r\n", ";1.1\r\n", "ERR_META_FIELD_VERSION"),
        (";1.0\r\n", "\r\n", "ERR_LINE_SPLIT_META"),
        ("kasino_1-01;", "kasino_2-01;", "ERR_META_FIELD_BAD_PACKAGE"),
        (
            CREATED,
            "2026-12-01T00:00:00.0+01:00",
            "ERR_META_FIELD_DATETIME",
        ),
    ] {
        let e = the_error(&edited("provozovatel.csv", |t| t.replacen(from, to, 1)));
        assert_eq!((e.code, e.line), (code, Some(1)), "{from} → {to}");
    }
}

#[test]
fn values_are_checked_by_presence_count_and_condition() {
    // A mandatory field left empty.
    assert_refused("misto.csv", ";Praha;", ";;", "ERR_FIELD_NOT_NULL", "Obec");
    // A table's period needs its game; a cage's does not.
    assert_refused(
        "pokladna_stul_turnaj_bingo.csv",
        ";12345679-roulette;",
        ";;",
        "ERR_FIELD_MANDATORY",
        "IDHra",
    );
    // A chip purchase states whether it was cash.
    assert_refused(
        "pstb_transakce.csv",
        ";CZK;1\r\n",
        ";CZK;\r\n",
        "ERR_FIELD_MANDATORY",
        "TransakceZpusob",
    );
    // Two premises in one package.
    let e = the_error(&edited("misto.csv", |t| {
        let line = t.lines().nth(2).unwrap().to_owned();
        format!("{t}{line}\r\n")
    }));
    assert_eq!(e.code, "ERR_FILE_BAD_RECORD_COUNT");
    let e = the_error(&edited("evidence_her.csv", |t| {
        t.replace(";Z\r\n", ";Z;extra\r\n")
    }));
    assert_eq!(e.code, "ERR_LINE_BAD_FIELD_COUNT");
}
