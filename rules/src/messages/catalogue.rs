//! Every message template the rules write into a finding, with its Czech (see the module
//! above for the slots). [`MESSAGES`] are whole messages; [`PARTS`] are the phrases the rules
//! put into them (a bet as the subject of a sentence, a reason, a context, …).
//!
//! The English is what the rules' format strings write, to the byte; a test reads the rules'
//! sources and fails on a format string that is none of these.

/// Whole messages, English and Czech, tried in this order.
pub const MESSAGES: &[(&str, &str)] = &[
    // A bet settled other than the plan says (`Finding::settlement`, `Finding::payout`).
    (
        "{t}: {t2}; paid {m}, the plan requires {m2}{o}",
        "{t}: {t2}; vyplaceno {m}, plán požaduje {m2}{o}",
    ),
    (
        "{i}: {t2}; paid {m}, the plan requires {m2}{o}",
        "{i}: {t2}; vyplaceno {m}, plán požaduje {m2}{o}",
    ),
    // `Finding::win_above_maximum`.
    (
        "bet {i}: {t} {m}, above the plan's {t2} of {m2}",
        "sázka {i}: {t} {m}, více než {t2} podle plánu ({m2})",
    ),
    // `Finding::burns`.
    ("{n} cards burned; {t}", "spálených karet: {n}; {t}"),
    // A stake against a limit (`PostedRange::judge` and the games' own limits).
    ("{t}: stake {m} {t2} {m2}", "{t}: vklad {m} {t2} {m2}"),
    (
        "bet {i} ({k}): stake {m} {t} {m2}",
        "sázka {i} ({k}): vklad {m} {t} {m2}",
    ),
    ("spot {n} {k}: stake {m} {t} {m2}", "box {n}, {k}: vklad {m} {t} {m2}"),
    // Money wheels.
    (
        "the wheel made {n} full turns, fewer than the plan's {n2}: the spin is void and every stake must be returned",
        "kolo se otočilo celé jen {n}×, méně než {n2}× podle plánu: roztočení je neplatné a všechny sázky se musí vrátit",
    ),
    (
        "player {i} staked {m} on the spin, above the maximum of {m2} per game",
        "hráč {i} vsadil na roztočení {m}, více než maximum {m2} na hru",
    ),
    (
        "bet {i}: `{i2}` is not a box of this wheel; its stake of {m} must be returned",
        "sázka {i}: `{i2}` není pole tohoto kola; její vklad {m} se musí vrátit",
    ),
    (
        "player {i} staked {m} on box {b}, {t} of {m2} per box",
        "hráč {i} vsadil {m} na {b}, {t} {m2} na pole",
    ),
    // Roulette.
    (
        "bet {i}: {t}; such a bet cannot be accepted and its stake of {m} must be returned",
        "sázka {i}: {t}; takovou sázku nelze přijmout a její vklad {m} se musí vrátit",
    ),
    (
        "player {i} staked {m} on {t}, {t2} of {m2} per bet",
        "hráč {i} vsadil {m} na {t}, {t2} {m2} na sázku",
    ),
    (
        "the ball was spun in the rotor's direction: the plan makes such a spin void (chybné roztočení), yet it was settled; every stake must go back",
        "kulička byla vhozena ve směru otáčení rotoru: takové roztočení je podle plánu neplatné (chybné roztočení), přesto bylo vypořádáno; všechny sázky se musí vrátit",
    ),
    (
        "the ball went round {n} times, fewer than the plan's {n2}: the inspector may declare such a spin void, yet it was settled; judged void, every stake must go back",
        "kulička oběhla jen {n}×, méně než {n2}× podle plánu: inspektor může takové roztočení prohlásit za neplatné, přesto bylo vypořádáno; posouzeno jako neplatné, všechny sázky se musí vrátit",
    ),
    // Blackjack.
    (
        "the hand was declared void ({w}), but the plan has no void blackjack hand: „Kterákoliv karta během rozdávání chybně použitá, vytažená, či chybně přidělená komukoliv, se musí použít jako nejbližší další karta z ‚boty‘“; {m} went back to the players instead of the hand being played on and settled",
        "hra byla prohlášena za neplatnou ({w}), ale plán neplatnou hru blackjacku nezná: „Kterákoliv karta během rozdávání chybně použitá, vytažená, či chybně přidělená komukoliv, se musí použít jako nejbližší další karta z ‚boty‘“; hráčům se vrátilo {m}, místo aby se hra dohrála a vypořádala",
    ),
    (
        "bet {i} ({k}): {t}; its stake of {m} must be returned",
        "sázka {i} ({k}): {t}; její vklad {m} se musí vrátit",
    ),
    (
        "bet {i}: the casino withheld the win of {m} (card counting) and returned the stake of {m2}; the decision must be justified",
        "sázka {i}: kasino zadrželo výhru {m} (počítání karet) a vrátilo vklad {m2}; rozhodnutí musí být zdůvodněno",
    ),
    (
        "box {n}: main bets of {m} together, above the box maximum of {m2}",
        "box {n}: hlavní sázky dohromady {m}, více než maximum boxu {m2}",
    ),
    (
        "box {n}: {n2} main bets, the plan allows at most {n3} per box",
        "box {n}: hlavních sázek {n2}, plán dovoluje nejvýše {n3} na box",
    ),
    (
        "{c} appears more than {n} times, more than a {n2}-deck shoe holds",
        "{c} se objevuje víc než {n}×, víc, než obsahuje bota o {n2} balíčcích",
    ),
    (
        "the dealer stood on {n} but must draw to 17",
        "krupiér stál na {n}, ale musí brát do 17",
    ),
    (
        "the dealer drew {c} on {n}, where the plan says stand",
        "krupiér bral {c} na {n}, kde plán říká stát",
    ),
    (
        "the dealer drew {c} although every player hand was settled",
        "krupiér bral {c}, ačkoli všechny ruce hráčů byly vypořádány",
    ),
    ("box {n}, hand {n2}: {t}", "box {n}, ruka {n2}: {t}"),
    // A void hand of any card game.
    (
        "{i} ({k}): the hand is void ({w}), so {m} must go back; {m2} was",
        "{i} ({k}): hra je neplatná ({w}), proto se musí vrátit {m}; vráceno bylo {m2}",
    ),
    // Poker (cash game).
    (
        "the hand was declared a misdeal after {n} players had acted (seats {v}): „V okamžiku, kdy jednali dva a více Hráčů, již nemůže nastat Misdeal. Hra se musí dohrát s kartami tak, jak byly rozdány“ and „Blindy se potom nevrací“; {m} went back to the players that the plan says must be played for (blinds of {m2} were posted)",
        "hra byla prohlášena za misdeal poté, co jednali {n} hráči (místa {v}): „V okamžiku, kdy jednali dva a více Hráčů, již nemůže nastat Misdeal. Hra se musí dohrát s kartami tak, jak byly rozdány“ a „Blindy se potom nevrací“; hráčům se vrátilo {m}, o které se podle plánu musí dohrát (vloženy byly blindy {m2})",
    ),
    (
        "pot {n}: the dealer made {t}; the chips put in make {t2}",
        "pot {n}: krupiér udělal {t}; vložené žetony dávají {t2}",
    ),
    (
        "seat {n} put {m} into the pot but started with {m2}",
        "místo {n} vložilo do potu {m}, ale začínalo s {m2}",
    ),
    (
        "the board has {n} cards, the hand needs {n2}",
        "board má karet: {n}, hra jich potřebuje {n2}",
    ),
    (
        "rake {m}: the plan allows {m2} ({i} % of the {m3} pot rounded down to whole Kč, at most {m4} with {n} players)",
        "rake {m}: plán dovoluje {m2} ({i} % z potu {m3} zaokrouhleno dolů na celé Kč, nejvýše {m4} při {n} hráčích)",
    ),
    (
        "seat {n} ({v}): {t}; handed {m}, the pots give {m2}",
        "místo {n} ({v}): {t}; vyplaceno {m}, z potů plyne {m2}",
    ),
    (
        "{m} went into the pot, {m2} came out (awards {m3} + rake {m4})",
        "do potu šlo {m}, vyšlo {m2} (výhry {m3} + rake {m4})",
    ),
    (
        "the hand is void ({w}): no rake is taken, {m} was",
        "hra je neplatná ({w}): rake se nebere, vzato bylo {m}",
    ),
    (
        "the hand is played with a {t} of {m}, the table posts {m2}",
        "hra se hraje se {t} {m}, stůl vyhlašuje {m2}",
    ),
    (
        "pot {n} of {m}: none of its players showed a complete hand, so none can win it",
        "pot {n} ve výši {m}: žádný z jeho hráčů neukázal úplnou ruku, nikdo ho tedy nemůže vyhrát",
    ),
    (
        "seat {n} is dealt in between the button (seat {n2}) and the big blind: „Nikdy nemůže nový hráč začít hrát mezi buttonem a big blindem“",
        "místo {n} dostalo karty mezi buttonem (místo {n2}) a big blindem: „Nikdy nemůže nový hráč začít hrát mezi buttonem a big blindem“",
    ),
    ("the hand starts without a big blind", "hra začíná bez big blindu"),
    (
        "{w} posted by seat {n}, but seat {n2} is in that position",
        "{w} vložilo místo {n}, ale na té pozici je místo {n2}",
    ),
    ("{w} of {m}, the table's is {m2}", "{w} {m}, stůl má {m2}"),
    (
        "an entering big blind of {m}, the table's is {m2}",
        "vstupní big blind {m}, stůl má {m2}",
    ),
    (
        "seat {n} checks facing {m} to call",
        "místo {n} dává check, ačkoli má dorovnat {m}",
    ),
    (
        "seat {n} calls with nothing to call",
        "místo {n} dorovnává, ačkoli není co dorovnat",
    ),
    ("{w} after the blinds were posted", "{w} po vložení blindů"),
    ("seat {n} acts ({w}) after folding", "místo {n} hraje ({w}) po složení karet"),
    ("seat {n} acts ({w}) after going all in", "místo {n} hraje ({w}) po all-in"),
    (
        "seat {n} acts out of turn on the {w}: seat {n2} is to act",
        "místo {n} hraje na {w} mimo pořadí: na řadě je místo {n2}",
    ),
    (
        "seat {n} acts ({w}) after the {w2} betting was over",
        "místo {n} hraje ({w}) po skončení sázek na {w2}",
    ),
    ("seat {n}: a {w} without an amount", "místo {n}: {w} bez částky"),
    (
        "seat {n} all in to {m}, but has {m2} in all",
        "místo {n} all-in na {m}, ale má celkem {m2}",
    ),
    (
        "seat {n}: a {w} to {m} does not exceed the bet of {m2}",
        "místo {n}: {w} na {m} nepřevyšuje sázku {m2}",
    ),
    (
        "seat {n} bets {m}, below the minimum bet of {m2} (the big blind)",
        "místo {n} sází {m}, méně než minimální sázka {m2} (big blind)",
    ),
    (
        "seat {n} raises to {m}, below the minimum raise to {m2} ({m3} + the last raise of {m4})",
        "místo {n} navyšuje na {m}, méně než minimální navýšení na {m2} ({m3} + poslední navýšení {m4})",
    ),
    (
        "seat {n} raises, but the betting was not reopened to it (an all in short of a full raise)",
        "místo {n} navyšuje, ale sázení mu nebylo znovu otevřeno (all-in menší než plné navýšení)",
    ),
    (
        "seat {n} acts ({w}) after the hand was won uncontested",
        "místo {n} hraje ({w}) poté, co hra byla vyhrána bez boje",
    ),
    ("a {w} action after the {w2} had begun", "akce na {w} poté, co začala sázka na {w2}"),
    (
        "the {w} betting ended before seat {n} acted",
        "sázky na {w} skončily dříve, než hrálo místo {n}",
    ),
    (
        "the hand ends before seat {n} acted on the {w}",
        "hra končí dříve, než místo {n} hrálo na {w}",
    ),
    (
        "the betting stops on the {w} with {n} players still able to bet",
        "sázení končí na {w}, přestože sázet ještě mohou hráči: {n}",
    ),
    (
        "a time collection of {m} {t} and 30 minutes; the plan allows {m2} to {m3}",
        "poplatek za čas {m} {t} a 30 minut; plán dovoluje {m2} až {m3}",
    ),
    (
        "seat {n} ({v}) paid {m} for {n2} minutes; the announced {m2} per 30 minutes makes {m3}",
        "místo {n} ({v}) zaplatilo {m} za {n2} minut; vyhlášených {m2} za 30 minut dává {m3}",
    ),
    // Ultimate Texas Hold'em.
    (
        "spot {n}: paid {m} in all, above the plan's maximum possible win of {m2}",
        "box {n}: vyplaceno celkem {m}, více než maximální možná výhra podle plánu ({m2})",
    ),
    (
        "spot {n}: the Blind must equal the Ante ({m}), it is {m2}",
        "box {n}: Blind se musí rovnat Ante ({m}), je {m2}",
    ),
    (
        "spot {n}: Trips of {m} above the Ante of {m2}",
        "box {n}: Trips {m}, více než Ante {m2}",
    ),
    (
        "spot {n}: a Play bet of {m} {t}; the plan allows {l} × the Ante of {m2}",
        "box {n}: sázka Play {m} {t}; plán dovoluje {l} × Ante {m2}",
    ),
    // Open Face Chinese.
    (
        "{n} players; the plan allows {n2} to {n3}",
        "hráčů: {n}; plán dovoluje {n2} až {n3}",
    ),
    (
        "{i} ({i2}{o}): {t}; settled at {m}, the rows give {m2}",
        "{i} ({i2}{o}): {t}; vypořádáno {m}, řady dávají {m2}",
    ),
    (
        "{i}: rake {m}, the plan takes {m2} per player and hand{o}",
        "{i}: rake {m}, plán bere {m2} za hráče a hru{o}",
    ),
    (
        "the players' results add up to {m}, not 0 (what one wins another loses)",
        "výsledky hráčů dávají dohromady {m}, ne 0 (co jeden vyhraje, druhý prohraje)",
    ),
    (
        "{i}: earned fantasy land with {n} cards in the previous hand, dealt {n2}",
        "{i}: v předchozí hře získal fantasy land se {n} kartami, rozdáno {n2}",
    ),
    (
        "{i}: earned fantasy land with {n} cards in the previous hand, dealt a normal hand",
        "{i}: v předchozí hře získal fantasy land se {n} kartami, rozdána běžná hra",
    ),
    (
        "{i}: dealt fantasy land ({n} cards) without earning it in the previous hand",
        "{i}: rozdána fantasy land ({n} karet), aniž ji v předchozí hře získal",
    ),
    // Tournaments.
    ("entries[{n}] ({i}): {t}", "vstup entries[{n}] ({i}): {t}"),
    (
        "{i} started hand {n} with {n2} chips, {i2} with {n3}: knocked out together, {i3} places higher, not {v} against {v2}",
        "{i} začal hru {n} s {n2} žetony, {i2} s {n3}: vypadli spolu, {i3} se umisťuje výš, ne {v} proti {v2}",
    ),
    (
        "the plan has no payout table for {n} entries",
        "plán nemá výplatní tabulku pro {n} vstupů",
    ),
    (
        "the results list {n} places; with {n2} entries the plan pays {n3}",
        "výsledky uvádějí míst: {n}; při {n2} vstupech plán platí {n3}",
    ),
    (
        "a deal at {d} before registration closed at {d2}",
        "dohoda {d} UTC před uzavřením registrace {d2} UTC",
    ),
    (
        "a deal needs every remaining player: it names {v}, the players still in were {v2}",
        "dohoda potřebuje všechny zbývající hráče: jmenuje {v}, ve hře byli {v2}",
    ),
    (
        "the deal shares {m}, the places it replaces pay {m2}: the prize pool is not preserved",
        "dohoda rozděluje {m}, místa, která nahrazuje, platí {m2}: prize pool se nezachovává",
    ),
    (
        "the fee was announced {n} days before the start; the plan requires at least {n2}",
        "poplatek byl vyhlášen {n} dní před začátkem; plán požaduje nejméně {n2}",
    ),
    (
        "a fee of {i} %; the plan allows {i2} to {i3} %",
        "poplatek {i} %; plán dovoluje {i2} až {i3} %",
    ),
    ("fee {m}: {i} % of the {w} {m2} is {m3}", "poplatek {m}: {i} % z {w} {m2} je {m3}"),
    ("{m} paid out, more than the {t} {m2}", "vyplaceno {m}, víc než {t} {m2}"),
    // A record that cannot have happened (`Verdict::impossible`).
    (
        "{v}: {t}. The round cannot have happened as recorded; it is kept as evidence and its settlement is not judged",
        "{v}: {t}. Kolo nemohlo proběhnout tak, jak je zapsáno; je uchováno jako důkaz a jeho vypořádání se neposuzuje",
    ),
    // The table audit (across rounds).
    (
        "seat {n} posted the big blind in hand {n2} too: nobody is the big blind twice running",
        "místo {n} vložilo big blind i ve hře {n2}: nikdo není big blindem dvakrát po sobě",
    ),
    (
        "the big blind moved from seat {n} to seat {n2}, passing over seat {v} dealt in both hands",
        "big blind se posunul z místa {n} na místo {n2} a přeskočil místo {v}, které hrálo v obou hrách",
    ),
    (
        "the button went from seat {n} to seat {n2}; it moves one position clockwise each hand, to seat {n3}, the small blind of hand {n4}",
        "button se posunul z místa {n} na místo {n2}; posouvá se o jednu pozici po směru hodinových ručiček každou hru, na místo {n3}, small blind hry {n4}",
    ),
    (
        "the button went from seat {n} to seat {n2}; it moves one position clockwise each hand, and no further than seat {n3}, the big blind of hand {n4}",
        "button se posunul z místa {n} na místo {n2}; posouvá se o jednu pozici po směru hodinových ručiček každou hru, a ne dál než na místo {n3}, big blind hry {n4}",
    ),
    (
        "spin {n} turned the wheel {w} as spin {n2} did: the plan makes a spin whose wheel was not reversed void (chybné roztočení), yet it was settled",
        "roztočení {n} točilo kolem {w} stejně jako roztočení {n2}: roztočení bez obrácení směru kola je podle plánu neplatné (chybné roztočení), přesto bylo vypořádáno",
    ),
    (
        "spin {n} turned the wheel {w} after no-spin {n2} had turned it {w2}: after a no-spin the plan turns the wheel the same way („Ruletové kolo následně otočí ve stejném směru a do protisměru vhodí kuličku“), yet it was reversed and settled",
        "roztočení {n} točilo kolem {w} po no-spinu {n2}, který jím točil {w2}: po no-spinu se podle plánu kolo točí stejným směrem („Ruletové kolo následně otočí ve stejném směru a do protisměru vhodí kuličku“), přesto byl směr obrácen a roztočení vypořádáno",
    ),
    (
        "hand {n} was played for time at {v}, after the time the table collected ran out at {v2}",
        "hra {n} se hrála na čas v {v}, když čas vybraný stolem skončil v {v2}",
    ),
    (
        "hand {n} was played for time at {v}, and the table collected no time before it",
        "hra {n} se hrála na čas v {v} a stůl před ní žádný čas nevybral",
    ),
    // Open Face Chinese: a player's card problems (see the parts).
    ("{i}: {t}", "{i}: {t}"),
];

/// Phrases the rules put into messages, English and Czech.
pub const PARTS: &[(&str, &str)] = &[
    // Subjects.
    ("bet {i} ({k})", "sázka {i} ({k})"),
    ("bet {i} on {b}", "sázka {i} na {b}"),
    ("spot {n} {k} ({i})", "box {n}, {k} ({i})"),
    ("spot {n} {k}", "box {n}, {k}"),
    ("box {n}: main bets together", "box {n}: hlavní sázky dohromady"),
    ("player {i} on box {b}", "hráč {i} na {b}"),
    ("player {i} on {t}", "hráč {i} na {t}"),
    // What was wrong with a payout.
    ("overpaid", "přeplaceno"),
    ("underpaid", "nedoplaceno"),
    (
        "void spin: the stake must be returned exactly",
        "neplatné roztočení: vklad se musí vrátit přesně",
    ),
    // Contexts of a payout.
    (" (refund of everything paid in)", " (vrácení všeho zaplaceného)"),
    (" (player {w}, dealer {w2}{o})", " (hráč {w}, krupiér {w2}{o})"),
    (", not qualifying", ", bez kvalifikace"),
    // A win above the maximum.
    ("paid", "vyplaceno"),
    ("a net win of", "čistá výhra"),
    ("maximum possible win", "maximální možná výhra"),
    ("maximum net win", "maximální čistá výhra"),
    // Limits.
    ("below the minimum of", "pod minimem"),
    ("above the maximum of", "nad maximem"),
    ("below the minimum", "pod minimem"),
    ("above the maximum", "nad maximem"),
    ("below the table's posted minimum of", "pod minimem vyhlášeným stolem"),
    ("above the table's posted maximum of", "nad maximem vyhlášeným stolem"),
    // Burns.
    (
        "the dealer burns one before each street, {n} for a board of {n2}",
        "krupiér pálí jednu kartu před každou ulicí, {n} pro board o {n2} kartách",
    ),
    (
        "the plan burns {n} after a shuffle and {n2} after a dealer change, {n3} here",
        "plán pálí {n} po zamíchání a {n2} po výměně krupiéra, zde {n3}",
    ),
    (
        "the plan burns {n} (before the flop, before the turn and river)",
        "plán pálí {n} (před flopem, před turnem a riverem)",
    ),
    // Roulette: the places of the layout, and why a bet is no position.
    ("red", "červená"),
    ("black", "černá"),
    ("odd", "lichá"),
    ("even", "sudá"),
    ("low (1-18)", "malá čísla (1–18)"),
    ("high (19-36)", "velká čísla (19–36)"),
    ("first dozen (1-12)", "1. tucet (1–12)"),
    ("second dozen (13-24)", "2. tucet (13–24)"),
    ("third dozen (25-36)", "3. tucet (25–36)"),
    ("first column (1-34)", "1. sloupec (1–34)"),
    ("second column (2-35)", "2. sloupec (2–35)"),
    ("third column (3-36)", "3. sloupec (3–36)"),
    ("straight {i}", "číslo (plein) {i}"),
    ("split {i}", "dvojčíslí (cheval) {i}"),
    ("street {i}", "trojčíslí (transversale) {i}"),
    ("corner {i}", "čtyřčíslí (carré) {i}"),
    ("six line {i}", "šestičíslí (sixain) {i}"),
    ("numbers {v} are not a {k} of the layout", "čísla {v} nejsou na stole {k}"),
    ("{n} is not a number of the wheel", "{n} není číslo kola"),
    (
        "neighbours name exactly one centre number, not {v}",
        "sousedé jmenují právě jedno středové číslo, ne {v}",
    ),
    ("`{i}` is not a roulette bet", "`{i}` není sázka rulety"),
    // Blackjack: why a bet is refused, and wrong decisions.
    (
        "Perfect Pairs is played only with a main bet on the box",
        "Perfect Pairs se hraje jen s hlavní sázkou na boxu",
    ),
    (
        "insurance is offered only on a dealer ace",
        "pojištění se nabízí jen při esu krupiéra",
    ),
    (
        "insurance needs the player's main bet on the box",
        "pojištění vyžaduje hlavní sázku hráče na boxu",
    ),
    (
        "insurance above the plan's share of the main bet",
        "pojištění nad podílem hlavní sázky, který plán dovoluje",
    ),
    (
        "decisions after a split belong to the split hands",
        "rozhodnutí po rozdělení patří rozděleným rukám",
    ),
    ("hit after a double", "karta (hit) po zdvojení"),
    ("`{w}` after the hand was complete", "`{w}` po dokončení ruky"),
    (
        "`{w}` on a split ace, which takes one card only",
        "`{w}` na rozděleném esu, které bere jen jednu kartu",
    ),
    ("`{w}` on {t}", "`{w}` na {t}"),
    ("a bust hand", "ruce přes 21"),
    ("21", "21"),
    ("double on more than two cards", "zdvojení na víc než dvou kartách"),
    (
        "double after a split, which the plan does not allow",
        "zdvojení po rozdělení, které plán nedovoluje",
    ),
    (
        "split of cards that are not a pair of equal value",
        "rozdělení karet, které nejsou pár stejné hodnoty",
    ),
    ("more than {n} splits", "víc než {n} rozdělení"),
    ("aces split a second time", "esa rozdělena podruhé"),
    // Poker: pots, blinds, time collection.
    ("{m} for seats {v}", "{m} pro místa {v}"),
    ("no such pot", "žádný takový pot"),
    ("small blind", "small blindem"),
    ("big blind", "big blindem"),
    ("per player", "na hráče"),
    ("for the table", "za stůl"),
    // Ultimate Texas Hold'em: when the Play bet was made.
    ("before the flop", "před flopem"),
    ("after the flop", "po flopu"),
    ("after the river", "po riveru"),
    // Open Face Chinese.
    (", fouled", ", faul"),
    (" (none in a tournament)", " (v turnaji žádný)"),
    (
        "{n} cards set or discarded were not dealt",
        "vyložených nebo odhozených karet, které nebyly rozdány: {n}",
    ),
    (
        "{n} dealt cards are neither in a row nor discarded",
        "rozdaných karet, které nejsou v řadě ani odhozeny: {n}",
    ),
    (
        "{n} cards of dealing round {n2} discarded, the game allows {n3}",
        "z {n2}. kola rozdávání odhozeno karet: {n}, hra dovoluje {n3}",
    ),
    ("{t}; {t2}", "{t}; {t2}"),
    // Tournaments: entries, what was paid out.
    ("a {w} before the player's buy-in", "{w} před buy-inem hráče"),
    (
        "a second buy-in (a re-entry must be recorded as one)",
        "druhý buy-in (re-entry se musí zapsat jako re-entry)",
    ),
    ("{w} after registration closed at {d}", "{w} po uzavření registrace {d} UTC"),
    ("a {w} in a {w2} tournament", "{w} v turnaji typu {w2}"),
    (
        "a second rebuy in a one-rebuy tournament",
        "druhý rebuy v turnaji s jedním rebuy",
    ),
    (
        "a rebuy with {n} chips, more than the starting stack of {n2}",
        "rebuy s {n} žetony, víc než počáteční stack {n2}",
    ),
    (
        "a rebuy without the player's chips before it",
        "rebuy bez údaje o žetonech hráče před ním",
    ),
    (
        "a re-entry while the player still had chips (not handed back)",
        "re-entry, když hráč ještě měl žetony (nevrácené)",
    ),
    ("a second add-on", "druhý add-on"),
    ("paid {m} for a {w} announced at {m2}", "zaplaceno {m} za {w} vyhlášený za {m2}"),
    (
        "a {w}, which this tournament does not price",
        "{w}, pro který tento turnaj nemá cenu",
    ),
    ("money paid in,", "zaplacené peníze,"),
    ("prize pool of", "prize pool"),
    // Why a record cannot have happened (`RecordError::impossible`).
    (
        "segment {n} is not on this table's wheel of {n2} segments",
        "segment {n} není na kole tohoto stolu o {n2} segmentech",
    ),
    ("{n} hole cards in {i}, {n2} shown", "{n} karet v ruce ve hře {i}, ukázáno {n2}"),
    ("a table seats at most {n}, not {n2}", "ke stolu se vejde nejvýše {n} hráčů, ne {n2}"),
    ("a seat number 1 to {n}, not {n2}", "číslo místa 1 až {n}, ne {n2}"),
    (
        "{c} is dealt twice; one deck holds each card once",
        "{c} je rozdána dvakrát; balíček má každou kartu jednou",
    ),
    (
        "{c} is dealt twice; a one-deck game holds each card once",
        "{c} je rozdána dvakrát; hra s jedním balíčkem má každou kartu jednou",
    ),
    (
        "blinds must be positive, the big blind at least the small one",
        "blindy musí být kladné, big blind nejméně jako small blind",
    ),
    ("seat {n} is not dealt in", "místo {n} nedostalo karty"),
    (
        "announced_at <= starts_at <= registration_closes_at",
        "announced_at <= starts_at <= registration_closes_at (vyhlášení, začátek, konec registrace v tomto pořadí)",
    ),
    ("entries are in time order", "vstupy jsou v časovém pořadí"),
    (
        "results list places 1, 2, 3, … in order",
        "výsledky uvádějí místa 1, 2, 3, … v pořadí",
    ),
    ("placed twice", "umístěn dvakrát"),
    ("never entered", "nikdy nevstoupil"),
    ("listed twice", "uveden dvakrát"),
    (
        "with a deal, every place but the winner's needs the time the player went out",
        "při dohodě potřebuje každé místo kromě vítězova čas, kdy hráč vypadl",
    ),
    (
        "a cancelled tournament has no results and no deal",
        "zrušený turnaj nemá výsledky ani dohodu",
    ),
    ("the deal has no card left for {t}", "rozdávání nemá kartu pro {t}"),
    ("box {n}'s first card", "první kartu boxu {n}"),
    ("the dealer's card", "kartu krupiéra"),
    ("box {n}'s second card", "druhou kartu boxu {n}"),
    ("a split hand of box {n}", "rozdělenou ruku boxu {n}"),
    ("a hit on box {n}", "kartu (hit) na boxu {n}"),
    ("a double on box {n}", "zdvojení na boxu {n}"),
    (
        "box {n}: more hands were played than `hands` records",
        "box {n}: odehráno víc rukou, než zapisuje `hands`",
    ),
    (
        "box {n}: `hands` records {n2} hands, the play made {n3}",
        "box {n}: `hands` zapisuje rukou {n2}, hra jich udělala {n3}",
    ),
    ("the {i} row holds {n} cards, not {n2}", "řada {i} má karet {n}, ne {n2}"),
    (
        "fantasy land deals one group of 14 to 17 cards; got groups of {v}",
        "fantasy land rozdává jednu skupinu 14 až 17 karet; skupiny byly {v}",
    ),
    (
        "outside fantasy land the deal is 5 cards, then 4 × 3; got groups of {v}",
        "mimo fantasy land se rozdává 5 karet, pak 4 × 3; skupiny byly {v}",
    ),
    ("{c} is dealt twice to the player", "{c} je hráči rozdána dvakrát"),
    ("{c} is dealt to two players (one deck)", "{c} je rozdána dvěma hráčům (jeden balíček)"),
    ("{c} appears twice in the rows and discards", "{c} je dvakrát v řadách a odhozech"),
    (
        "{n} is not a pocket of a single-zero wheel (0-36)",
        "{n} není pole kola s jednou nulou (0–36)",
    ),
    ("{n} cards; a hand played out has {n2}", "karet {n}; dohraná hra jich má {n2}"),
];
