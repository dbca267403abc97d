//! Pearson's chi-square goodness-of-fit test against equally likely outcomes, with its p-value
//! (the regularized upper incomplete gamma function Q(k/2, x/2)). Statistics, not money.

/// The statistic and its p-value for `counts` against an even spread over the cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChiSquare {
    pub statistic: f64,
    pub degrees_of_freedom: u32,
    pub p_value: f64,
}

/// Tests `counts` (one per cell) against every cell being equally likely; `None` with fewer
/// than two cells or no observations.
pub fn uniform(counts: &[u64]) -> Option<ChiSquare> {
    let n: u64 = counts.iter().sum();
    if counts.len() < 2 || n == 0 {
        return None;
    }
    let expected = n as f64 / counts.len() as f64;
    let statistic = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum::<f64>();
    let degrees_of_freedom = counts.len() as u32 - 1;
    Some(ChiSquare {
        statistic,
        degrees_of_freedom,
        p_value: upper_tail(statistic, degrees_of_freedom),
    })
}

/// P(X ≥ x) for X chi-square distributed with `k` degrees of freedom.
pub fn upper_tail(x: f64, k: u32) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    regularized_upper_gamma(f64::from(k) / 2.0, x / 2.0)
}

/// ln Γ(z) for z > 0 (Lanczos, g = 7, nine coefficients: about 15 significant digits).
fn ln_gamma(z: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if z < 0.5 {
        // Reflection: Γ(z) Γ(1 − z) = π / sin(πz).
        return (std::f64::consts::PI / (std::f64::consts::PI * z).sin()).ln() - ln_gamma(1.0 - z);
    }
    let z = z - 1.0;
    let mut a = C[0];
    let t = z + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (z + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (z + 0.5) * t.ln() - t + a.ln()
}

/// Q(a, x) = Γ(a, x) / Γ(a): the series for x < a + 1, the continued fraction beyond.
fn regularized_upper_gamma(a: f64, x: f64) -> f64 {
    let prefix = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut term, mut sum, mut n) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1_000 {
            n += 1.0;
            term *= x / n;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * prefix).clamp(0.0, 1.0)
    } else {
        // Lentz's method for the continued fraction of Γ(a, x).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1_000 {
            let an = -f64::from(i) * (f64::from(i) - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (prefix * h).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_match_the_published_critical_values() {
        // Chi-square tables: (critical value, degrees of freedom, upper-tail probability).
        for (x, k, p) in [
            (3.841, 1, 0.05),
            (6.635, 1, 0.01),
            (10.828, 1, 0.001),
            (11.070, 5, 0.05),
            (39.252, 16, 0.001),
            (49.802, 35, 0.05),
            (66.619, 35, 0.001),
        ] {
            let got = upper_tail(x, k);
            assert!((got - p).abs() < p * 0.002, "x {x}, k {k}: {got} vs {p}");
        }
        // k = 2: Q(1, x/2) = e^(−x/2) exactly.
        assert!((upper_tail(4.0, 2) - (-2.0f64).exp()).abs() < 1e-14);
    }

    #[test]
    fn an_even_spread_passes_and_a_lopsided_one_does_not() {
        // 36 cells of 10: statistic 0, p = 1.
        let even = uniform(&[10; 36]).unwrap();
        assert_eq!(even.statistic, 0.0);
        assert_eq!(even.degrees_of_freedom, 35);
        assert!((even.p_value - 1.0).abs() < 1e-12);
        // 3 cells 10, 10, 40 (expected 20 each): (100 + 100 + 400) / 20 = 30 on 2 degrees of
        // freedom, p = e^(−15) = 3.06e-7.
        let lopsided = uniform(&[10, 10, 40]).unwrap();
        assert!((lopsided.statistic - 30.0).abs() < 1e-12);
        assert!((lopsided.p_value - (-15.0f64).exp()).abs() < 1e-15);
        assert!(uniform(&[5]).is_none());
        assert!(uniform(&[0, 0]).is_none());
    }
}
