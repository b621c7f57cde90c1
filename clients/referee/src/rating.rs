//! One Elo table for many engines from every game they played (Ordo and
//! BayesElo's approach, not pairwise averages): the Bradley-Terry model
//! fitted by maximum likelihood.
//!
//! Model: engine `i` scores `p = 1 / (1 + 10^((r_j - r_i) / 400))` on average
//! against engine `j`; a draw counts half a point (the binomial likelihood of
//! the points scored, no separate draw parameter). Optionally every pairing
//! that played gets `prior` virtual draws first (BayesElo's prior), which keeps
//! a clean sweep finite. The ratings maximise the log-likelihood, found by
//! Newton's method with the anchor held at 0 (the log-likelihood is concave,
//! so its one maximum is found from anywhere). The intervals are the normal
//! approximation from the inverse of the negated Hessian at the maximum (the
//! observed information), for each rating relative to the anchor.

use serde::Serialize;

/// Games between two engines: `first`'s points out of `games`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Head2Head {
    /// One engine (an index into the engine list).
    pub first: usize,
    /// The other.
    pub second: usize,
    /// Games they played.
    pub games: u32,
    /// `first`'s points (a win 1, a draw 0.5).
    pub points: f64,
}

/// One engine's line of the table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// The engine's index in the engine list.
    pub engine: usize,
    /// Its Elo relative to the anchor; `None` when it has played no game.
    pub elo: Option<f64>,
    /// The 95% interval's ends (equal to `elo` for the anchor).
    pub low: Option<f64>,
    /// The upper end.
    pub high: Option<f64>,
    /// Games it played.
    pub games: u32,
    /// Its points over those games.
    pub points: f64,
}

/// Why no table can be fitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RatingError {
    /// Without virtual draws, a group of engines took every point from the
    /// others: their Elo difference is infinite.
    #[error(
        "no finite maximum likelihood: some engines took every point against the others \
         (give virtual draws, --elo-prior)"
    )]
    Unbounded,
    /// Some engine never met the anchor's group, directly or through others.
    #[error("the engines that played are not all connected by games to the anchor")]
    Disconnected,
}

/// The Elo scale's slope: d p / d r at p = 1/2 is `SLOPE / 4`.
const SLOPE: f64 = std::f64::consts::LN_10 / 400.0;

/// The expected score of a player `d` Elo above the other.
fn expected(d: f64) -> f64 {
    1.0 / (1.0 + (-SLOPE * d).exp())
}

/// Fits the ratings of `engines` engines from `results`, `anchor` at 0,
/// with `prior` virtual draws added to every pairing that played.
/// Engines without games get `None`.
pub fn fit(
    engines: usize,
    results: &[Head2Head],
    anchor: usize,
    prior: f64,
) -> Result<Vec<Rating>, RatingError> {
    // the games, with the prior's virtual draws, per unordered pair
    let mut games = vec![vec![0.0f64; engines]; engines];
    let mut points = vec![vec![0.0f64; engines]; engines];
    let mut played = vec![0u32; engines];
    let mut scored = vec![0.0f64; engines];
    for h in results
        .iter()
        .filter(|h| h.games > 0 && h.first != h.second)
    {
        let (i, j) = (h.first, h.second);
        let n = f64::from(h.games);
        games[i][j] += n;
        games[j][i] += n;
        points[i][j] += h.points;
        points[j][i] += n - h.points;
        played[i] += h.games;
        played[j] += h.games;
        scored[i] += h.points;
        scored[j] += n - h.points;
    }
    for i in 0..engines {
        for j in 0..engines {
            if games[i][j] > 0.0 {
                games[i][j] += prior;
                points[i][j] += prior / 2.0;
            }
        }
    }
    let active: Vec<usize> = (0..engines).filter(|&i| played[i] > 0).collect();
    let mut table: Vec<Rating> = (0..engines)
        .map(|i| Rating {
            engine: i,
            elo: None,
            low: None,
            high: None,
            games: played[i],
            points: scored[i],
        })
        .collect();
    if active.is_empty() {
        return Ok(table);
    }
    if !active.contains(&anchor) || !connected(&active, anchor, |i, j| games[i][j] > 0.0) {
        return Err(RatingError::Disconnected);
    }
    // finite only if every group of engines scored some point off the rest
    if !connected(&active, anchor, |i, j| points[i][j] > 0.0) {
        return Err(RatingError::Unbounded);
    }

    // the unknowns: every active engine but the anchor
    let free: Vec<usize> = active.iter().copied().filter(|&i| i != anchor).collect();
    let mut r = vec![0.0f64; engines];
    let log_likelihood = |r: &[f64]| -> f64 {
        let mut l = 0.0;
        for &i in &active {
            for &j in &active {
                if i < j && games[i][j] > 0.0 {
                    let p = expected(r[i] - r[j]);
                    l += points[i][j] * p.ln() + points[j][i] * (1.0 - p).ln();
                }
            }
        }
        l
    };
    // gradient and negated Hessian over the free ratings
    let derivatives = |r: &[f64]| -> (Vec<f64>, Vec<Vec<f64>>) {
        let k = free.len();
        let mut g = vec![0.0; k];
        let mut h = vec![vec![0.0; k]; k];
        for (a, &i) in free.iter().enumerate() {
            for &j in &active {
                if j == i || games[i][j] == 0.0 {
                    continue;
                }
                let p = expected(r[i] - r[j]);
                g[a] += SLOPE * (points[i][j] - games[i][j] * p);
                let w = SLOPE * SLOPE * games[i][j] * p * (1.0 - p);
                h[a][a] += w;
                if let Some(b) = free.iter().position(|&x| x == j) {
                    h[a][b] -= w;
                }
            }
        }
        (g, h)
    };
    for _ in 0..200 {
        let (g, h) = derivatives(&r);
        let Some(step) = solve(&h, &g) else { break };
        // Newton's step, halved until the likelihood does not fall
        let before = log_likelihood(&r);
        let mut t = 1.0;
        let mut moved = false;
        for _ in 0..40 {
            let mut next = r.clone();
            for (a, &i) in free.iter().enumerate() {
                next[i] += t * step[a];
            }
            if log_likelihood(&next) >= before - 1e-12 {
                r = next;
                moved = true;
                break;
            }
            t /= 2.0;
        }
        let size = step.iter().fold(0.0f64, |m, s| m.max((t * s).abs()));
        if !moved || size < 1e-9 {
            break;
        }
    }
    let (_, h) = derivatives(&r);
    let cov = invert(&h);
    for &i in &active {
        let row = &mut table[i];
        row.elo = Some(r[i]);
        let margin = match free.iter().position(|&x| x == i) {
            None => Some(0.0), // the anchor
            Some(a) => cov.as_ref().map(|c| 1.959_964 * c[a][a].max(0.0).sqrt()),
        };
        row.low = margin.map(|m| r[i] - m);
        row.high = margin.map(|m| r[i] + m);
    }
    Ok(table)
}

/// Whether every engine of `nodes` can reach `from` and be reached from it
/// along the edges `edge(i, j)` (i to j).
fn connected(nodes: &[usize], from: usize, edge: impl Fn(usize, usize) -> bool) -> bool {
    let reach = |forward: bool| {
        let mut seen = vec![from];
        let mut todo = vec![from];
        while let Some(i) = todo.pop() {
            for &j in nodes {
                let e = if forward { edge(i, j) } else { edge(j, i) };
                if e && !seen.contains(&j) {
                    seen.push(j);
                    todo.push(j);
                }
            }
        }
        seen.len() == nodes.len()
    };
    reach(true) && reach(false)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None`
/// when `a` is singular.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .zip(b)
        .map(|(row, &v)| {
            let mut r = row.clone();
            r.push(v);
            r
        })
        .collect();
    for c in 0..n {
        let p = (c..n).max_by(|&x, &y| m[x][c].abs().total_cmp(&m[y][c].abs()))?;
        if m[p][c].abs() < 1e-300 {
            return None;
        }
        m.swap(c, p);
        let pivot = m[c].clone();
        for (r, row) in m.iter_mut().enumerate() {
            let f = row[c] / pivot[c];
            if r != c && f != 0.0 {
                for (x, p) in row.iter_mut().zip(&pivot).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
}

/// The inverse of `a`, column by column; `None` when singular.
fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut cols = Vec::with_capacity(n);
    for c in 0..n {
        let e: Vec<f64> = (0..n).map(|i| f64::from(u8::from(i == c))).collect();
        cols.push(solve(a, &e)?);
    }
    Some(
        (0..n)
            .map(|i| (0..n).map(|j| cols[j][i]).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(first: usize, second: usize, games: u32, points: f64) -> Head2Head {
        Head2Head {
            first,
            second,
            games,
            points,
        }
    }

    /// Two engines: the ML difference is the logistic Elo of the score,
    /// -400 log10(1/p - 1), and its standard error 1 / (SLOPE sqrt(n p (1-p))).
    #[test]
    fn two_engines_give_the_elo_of_the_score() {
        for (games, points) in [(10u32, 7.5), (40, 13.0), (3, 1.5)] {
            let t = fit(2, &[h(0, 1, games, points)], 1, 0.0).unwrap();
            let p = points / f64::from(games);
            let want = -400.0 * (1.0 / p - 1.0).log10();
            assert!((t[0].elo.unwrap() - want).abs() < 1e-6, "{games} {points}");
            assert_eq!(t[1].elo, Some(0.0));
            assert_eq!((t[1].low, t[1].high), (Some(0.0), Some(0.0)));
            let se = 1.0 / (SLOPE * (f64::from(games) * p * (1.0 - p)).sqrt());
            assert!((t[0].high.unwrap() - want - 1.959_964 * se).abs() < 1e-6);
            assert!((want - t[0].low.unwrap() - 1.959_964 * se).abs() < 1e-6);
            assert_eq!((t[0].games, t[1].games), (games, games));
        }
        // one virtual draw: the score of the games and the draw together
        let t = fit(2, &[h(0, 1, 8, 8.0)], 0, 1.0).unwrap();
        let p: f64 = 8.5 / 9.0;
        let want = 400.0 * (1.0 / p - 1.0).log10(); // engine 1, below the anchor
        assert!((t[1].elo.unwrap() - want).abs() < 1e-6);
        assert_eq!(t[1].points, 0.0);
    }

    /// Three engines whose results agree with one set of ratings exactly
    /// (odds 3 : 1, 3 : 1 and 9 : 1): those are the maximum.
    #[test]
    fn a_transitive_case_is_fitted_exactly() {
        let results = [h(0, 1, 4, 3.0), h(1, 2, 8, 6.0), h(0, 2, 10, 9.0)];
        let t = fit(3, &results, 0, 0.0).unwrap();
        let step = 400.0 * 3f64.log10(); // 190.85
        assert!((t[1].elo.unwrap() + step).abs() < 1e-6, "{t:?}");
        assert!((t[2].elo.unwrap() + 2.0 * step).abs() < 1e-6, "{t:?}");
        // anchored elsewhere: the same differences
        let u = fit(3, &results, 2, 0.0).unwrap();
        assert!((u[0].elo.unwrap() - 2.0 * step).abs() < 1e-6);
        for r in &t[1..] {
            assert!(r.low.unwrap() < r.elo.unwrap() && r.elo.unwrap() < r.high.unwrap());
        }
        assert_eq!((t[0].games, t[1].games, t[2].games), (14, 12, 18));
    }

    #[test]
    fn sweeps_and_gaps_are_refused_or_softened() {
        // engine 0 won every game: infinite without a prior
        let sweep = [h(0, 1, 6, 6.0), h(1, 2, 6, 3.0), h(0, 2, 6, 6.0)];
        assert_eq!(fit(3, &sweep, 0, 0.0), Err(RatingError::Unbounded));
        let t = fit(3, &sweep, 1, 1.0).unwrap();
        assert!(t[0].elo.unwrap() > 300.0 && t[2].elo.unwrap().abs() < 1e-6);
        // an engine that never played is left out; one that met nobody
        // linked to the anchor makes the table impossible
        let t = fit(3, &[h(0, 1, 4, 2.0)], 0, 0.0).unwrap();
        assert_eq!(t[2].elo, None);
        assert!(t[1].elo.unwrap().abs() < 1e-9);
        assert_eq!(
            fit(4, &[h(0, 1, 4, 2.0), h(2, 3, 4, 2.0)], 0, 0.0),
            Err(RatingError::Disconnected)
        );
    }
}
