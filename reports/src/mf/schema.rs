//! The Ministry's package schema, read from its own files (embedded at build time from
//! `reports/mf-schema/`): the fields of every file, the codebooks and the files each model and
//! game type requires. Nothing of it is transcribed into code.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

const FIELDS_STRUCTURE: &str = include_str!("../../mf-schema/fields_structure.csv");
const CODEBOOK: &str = include_str!("../../mf-schema/codebook.csv");
const MODEL_GAME_FILE: &str = include_str!("../../mf-schema/model_game_file.csv");

/// Two conditions in `fields_structure.csv` name their field in English while the schema's
/// `FieldNameEn` column is empty; these are the Czech names they mean.
const CONDITION_FIELD_ALIASES: [(&str, &str); 2] = [
    ("CageTableTournamentBingo", "PokladnaStulTurnajBingo"),
    ("TransactionType", "TransakceTyp"),
];

#[derive(Debug, thiserror::Error)]
#[error("the Ministry's schema file {file}: {reason}")]
pub struct SchemaError {
    pub file: &'static str,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    Identifier,
    IdentifierExtended,
    ReferenceLink,
    ReferenceLinkExtended,
    Text,
    DecimalNumber,
    IntegerNumber,
    Date,
    DateAndTime,
    Codebook,
}

impl FieldType {
    fn parse(text: &str) -> Option<FieldType> {
        Some(match text {
            "Identifier" => FieldType::Identifier,
            "IdentifierExtended" => FieldType::IdentifierExtended,
            "ReferenceLink" => FieldType::ReferenceLink,
            "ReferenceLinkExtended" => FieldType::ReferenceLinkExtended,
            "Text" => FieldType::Text,
            "DecimalNumber" => FieldType::DecimalNumber,
            "IntegerNumber" => FieldType::IntegerNumber,
            "Date" => FieldType::Date,
            "DateAndTime" => FieldType::DateAndTime,
            "codebook" => FieldType::Codebook,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Optional,
    Mandatory,
    /// Mandatory when the field's condition holds.
    MandatoryIf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    EqualsGameType,
    EqualsOperatorId,
    StartsWithOperatorId,
    WithinPackageTimespan,
}

/// A `mandatoryif` condition: `Field.IsEmpty()`, `Field.NotEmpty()`, `Field.In(…)` or
/// `Field.NotIn(…)`, over another field of the same line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// The field's Czech name, as in the header.
    pub field: String,
    pub test: ConditionTest,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConditionTest {
    IsEmpty,
    NotEmpty,
    In(Vec<String>),
    NotIn(Vec<String>),
}

impl Condition {
    /// Reads the schema's condition text; the quotes may be straight or typographic and the
    /// last value may be joined by `or`. `Field.IsEmpty(X)` means `X.IsEmpty()`.
    fn parse(text: &str) -> Option<Condition> {
        let (field, call) = text.trim().split_once('.')?;
        let (op, rest) = call.split_once('(')?;
        let args = rest.trim_end().strip_suffix(')')?;
        let (field, args) = match (field.trim(), args.trim()) {
            ("Field", inner) if !inner.is_empty() => (inner, ""),
            (field, args) => (field, args),
        };
        let values: Vec<String> = args
            .split(',')
            .flat_map(|part| part.split(" or "))
            .map(|v| {
                v.trim()
                    .trim_matches(|c| matches!(c, '\'' | '"' | '‘' | '’'))
                    .to_owned()
            })
            .filter(|v| !v.is_empty())
            .collect();
        let test = match op.trim() {
            "IsEmpty" => ConditionTest::IsEmpty,
            "NotEmpty" => ConditionTest::NotEmpty,
            "In" | "Equals" => ConditionTest::In(values),
            "NotIn" => ConditionTest::NotIn(values),
            _ => return None,
        };
        let field = field.trim();
        let field = CONDITION_FIELD_ALIASES
            .iter()
            .find(|(english, _)| *english == field)
            .map_or(field, |(_, czech)| czech);
        Some(Condition {
            field: field.to_owned(),
            test,
        })
    }

    /// Whether the condition holds for a line, given the trimmed value of its field.
    pub fn holds(&self, value: &str) -> bool {
        match &self.test {
            ConditionTest::IsEmpty => value.is_empty(),
            ConditionTest::NotEmpty => !value.is_empty(),
            ConditionTest::In(values) => values.iter().any(|v| v == value),
            ConditionTest::NotIn(values) => !values.iter().any(|v| v == value),
        }
    }
}

/// One field of one file of one model.
#[derive(Debug, Clone)]
pub struct FieldSpec {
    pub model: String,
    pub file: String,
    pub column: u32,
    /// `FieldNameCz`: the header's name.
    pub name: String,
    pub field_type: FieldType,
    pub domain: String,
    pub nullable: bool,
    pub presence: Presence,
    pub condition: Option<Condition>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub context: Option<Context>,
}

impl FieldSpec {
    /// Whether an empty value is an error on a line whose fields `value_of` gives.
    pub fn required<'a>(&self, value_of: impl Fn(&str) -> Option<&'a str>) -> bool {
        match self.presence {
            Presence::Mandatory => true,
            Presence::MandatoryIf => self
                .condition
                .as_ref()
                .is_some_and(|c| c.holds(value_of(&c.field).unwrap_or(""))),
            Presence::Optional => !self.nullable,
        }
    }
}

/// The whole schema.
#[derive(Debug)]
pub struct Schema {
    fields: Vec<FieldSpec>,
    codebook: HashMap<String, BTreeSet<String>>,
    /// (model, game type, file name) of every file a package must have.
    model_files: Vec<(String, String, String)>,
}

#[derive(serde::Deserialize)]
struct FieldRow {
    #[serde(rename = "Model")]
    model: String,
    #[serde(rename = "FileName")]
    file: String,
    #[serde(rename = "ColumnId")]
    column: u32,
    #[serde(rename = "FieldNameCz")]
    name: String,
    #[serde(rename = "FieldType")]
    field_type: String,
    #[serde(rename = "DomainType")]
    domain: String,
    #[serde(rename = "Nullable")]
    nullable: String,
    #[serde(rename = "Presence")]
    presence: String,
    #[serde(rename = "Condition")]
    condition: String,
    #[serde(rename = "MinLength")]
    min_length: String,
    #[serde(rename = "MaxLength")]
    max_length: String,
    #[serde(rename = "Context")]
    context: String,
}

fn csv_rows<T: serde::de::DeserializeOwned>(
    file: &'static str,
    text: &str,
) -> Result<Vec<T>, SchemaError> {
    csv::ReaderBuilder::new()
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes())
        .deserialize()
        .collect::<Result<Vec<T>, _>>()
        .map_err(|e| SchemaError {
            file,
            reason: e.to_string(),
        })
}

impl FieldRow {
    fn into_spec(self) -> Result<FieldSpec, String> {
        let length = |text: &str| -> Result<Option<usize>, String> {
            match text.trim() {
                "" => Ok(None),
                n => n.parse().map(Some).map_err(|_| format!("length `{n}`")),
            }
        };
        let field_type = FieldType::parse(&self.field_type)
            .ok_or_else(|| format!("{}: unknown field type `{}`", self.name, self.field_type))?;
        let presence = match self.presence.to_lowercase().as_str() {
            "" => Presence::Optional,
            "mandatory" => Presence::Mandatory,
            "mandatoryif" => Presence::MandatoryIf,
            other => return Err(format!("{}: unknown presence `{other}`", self.name)),
        };
        // A few conditions of the online model (`V`) are not in any form the Ministry's own
        // validator reads; such a field is treated as optional, as that validator does.
        let condition = Condition::parse(&self.condition);
        if presence == Presence::MandatoryIf && self.condition.trim().is_empty() {
            return Err(format!("{}: mandatoryif without a condition", self.name));
        }
        let context = match self.context.as_str() {
            "" => None,
            "equalsGameType" => Some(Context::EqualsGameType),
            "equalsOperatorId" => Some(Context::EqualsOperatorId),
            "startsWithOperatorId" => Some(Context::StartsWithOperatorId),
            "withinPackageTimespan" => Some(Context::WithinPackageTimespan),
            other => return Err(format!("{}: unknown context `{other}`", self.name)),
        };
        Ok(FieldSpec {
            model: self.model,
            file: self.file,
            column: self.column,
            min_length: length(&self.min_length)?,
            max_length: length(&self.max_length)?,
            name: self.name,
            field_type,
            domain: self.domain,
            nullable: self.nullable == "Y",
            presence,
            condition,
            context,
        })
    }
}

impl Schema {
    /// The schema dozor was built with.
    pub fn embedded() -> Result<&'static Schema, &'static SchemaError> {
        static SCHEMA: OnceLock<Result<Schema, SchemaError>> = OnceLock::new();
        SCHEMA
            .get_or_init(|| Schema::read(FIELDS_STRUCTURE, CODEBOOK, MODEL_GAME_FILE))
            .as_ref()
    }

    /// Reads a schema from the text of its three files.
    pub fn read(fields: &str, codebook: &str, model_files: &str) -> Result<Schema, SchemaError> {
        let fields = csv_rows::<FieldRow>("fields_structure.csv", fields)?
            .into_iter()
            .map(FieldRow::into_spec)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|reason| SchemaError {
                file: "fields_structure.csv",
                reason,
            })?;
        #[derive(serde::Deserialize)]
        struct CodeRow {
            #[serde(rename = "FieldName")]
            field: String,
            #[serde(rename = "Value")]
            value: String,
        }
        let mut codes: HashMap<String, BTreeSet<String>> = HashMap::new();
        for row in csv_rows::<CodeRow>("codebook.csv", codebook)? {
            codes.entry(row.field).or_default().insert(row.value);
        }
        #[derive(serde::Deserialize)]
        struct ModelFileRow {
            #[serde(rename = "Model")]
            model: String,
            #[serde(rename = "GameType")]
            game_type: String,
            #[serde(rename = "FileName")]
            file: String,
        }
        let model_files = csv_rows::<ModelFileRow>("model_game_file.csv", model_files)?
            .into_iter()
            .map(|r| (r.model, r.game_type, r.file))
            .collect();
        Ok(Schema {
            fields,
            codebook: codes,
            model_files,
        })
    }

    /// The fields of `file` in `model`, in column order (file names compare without case).
    pub fn file_fields(&self, model: &str, file: &str) -> Vec<&FieldSpec> {
        let mut fields: Vec<&FieldSpec> = self
            .fields
            .iter()
            .filter(|f| f.model == model && f.file.eq_ignore_ascii_case(file))
            .collect();
        fields.sort_by_key(|f| f.column);
        fields
    }

    /// The files a package of `model` and `game_type` must hold, as `model_game_file.csv`
    /// names them.
    pub fn files_for(&self, model: &str, game_type: &str) -> Vec<&str> {
        self.model_files
            .iter()
            .filter(|(m, g, _)| m == model && g == game_type)
            .map(|(_, _, f)| f.as_str())
            .collect()
    }

    /// Every file the schema describes for `model`.
    pub fn model_file_names(&self, model: &str) -> BTreeSet<String> {
        self.fields
            .iter()
            .filter(|f| f.model == model)
            .map(|f| f.file.to_lowercase())
            .collect()
    }

    /// Whether `value` is listed for the codebook field `field`.
    pub fn in_codebook(&self, field: &str, value: &str) -> bool {
        self.codebook.get(field).is_some_and(|v| v.contains(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_schema_reads_and_gives_the_live_game_files_in_column_order() {
        let schema = Schema::embedded().unwrap();
        let files = schema.files_for("M", "Z");
        assert_eq!(files.len(), 9);
        assert!(files.contains(&"pstb_transakce.csv"));
        // misto.csv lists its fields out of order in the schema; the header follows ColumnId.
        let names: Vec<&str> = schema
            .file_fields("M", "misto.csv")
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(
            &names[..4],
            ["IDMisto", "MistoNazev", "IDProvozovatel", "GPSX"]
        );
        // The PSTB file is named in two cases; either finds it.
        assert_eq!(
            schema.file_fields("M", "pstb_transakce.csv").len(),
            schema.file_fields("M", "PSTB_transakce.csv").len()
        );
        assert!(schema.in_codebook("TransakceTyp", "J1"));
        assert!(!schema.in_codebook("TransakceTyp", "X9"));
    }

    /// The condition of `field` in `file` of the monthly package.
    fn condition_of<'s>(schema: &'s Schema, file: &str, field: &str) -> &'s Condition {
        let spec = schema
            .file_fields("M", file)
            .into_iter()
            .find(|f| f.name == field)
            .unwrap();
        spec.condition.as_ref().unwrap()
    }

    #[test]
    fn conditions_read_with_english_names_and_typographic_quotes() {
        let schema = Schema::embedded().unwrap();
        let condition = condition_of(schema, "pstb_transakce.csv", "TransakceZpusob");
        assert_eq!(condition.field, "TransakceTyp");
        // Not required for an owner's cash delivery (3), nor for code 17 (after "or").
        assert!(!condition.holds("3"));
        assert!(!condition.holds("17"));
        assert!(condition.holds("J1"));
        let c = condition_of(
            schema,
            "pokladna_stul_turnaj_bingo.csv",
            "CistyHerniVysledek",
        );
        assert_eq!(c.field, "PokladnaStulTurnajBingo");
        assert!(c.holds("S") && !c.holds("P") && !c.holds("T"));
    }

    #[test]
    fn the_online_models_other_condition_forms_read_too() {
        let c = Condition::parse("Field.IsEmpty(IDMainEvent)").unwrap();
        assert_eq!(
            (c.field.as_str(), &c.test),
            ("IDMainEvent", &ConditionTest::IsEmpty)
        );
        let c = Condition::parse("CashOut.Equals(1)").unwrap();
        assert!(c.holds("1") && !c.holds("0"));
        // Not a form any validator reads: the field stays optional.
        assert_eq!(Condition::parse("TypeSM.(‘f’, 'g')"), None);
    }
}
