//! The little dense linear algebra the fit needs: a Cholesky factorisation of
//! a symmetric positive-definite matrix, solving with it, and inverting it.
//!
//! The matrices are the fit's negated Hessians, one row per bot of a pool
//! (tens, at most a few hundred), so a plain O(n³) factorisation is far below
//! the cost of reading the results; a linear-algebra crate would add more to
//! the build than it saves here.

/// A square matrix stored row by row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Matrix {
    n: usize,
    data: Vec<f64>,
}

impl Matrix {
    pub(crate) fn zeros(n: usize) -> Self {
        Self {
            n,
            data: vec![0.0; n * n],
        }
    }

    pub(crate) fn size(&self) -> usize {
        self.n
    }

    pub(crate) fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.n + j]
    }

    pub(crate) fn add(&mut self, i: usize, j: usize, value: f64) {
        self.data[i * self.n + j] += value;
    }

    /// Copies the lower triangle onto the upper one (callers fill only the
    /// lower triangle of a symmetric matrix, to halve the work).
    pub(crate) fn symmetrise_from_lower(&mut self) {
        for i in 0..self.n {
            for j in 0..i {
                self.data[j * self.n + i] = self.data[i * self.n + j];
            }
        }
    }
}

/// The Cholesky factor `L` of a symmetric positive-definite `A = L·Lᵀ`.
#[derive(Clone, Debug)]
pub(crate) struct Cholesky {
    l: Matrix,
}

impl Cholesky {
    /// Factorises `a`, reading only its lower triangle. None if `a` is not
    /// (numerically) positive definite.
    pub(crate) fn new(a: &Matrix) -> Option<Self> {
        let n = a.n;
        let mut l = Matrix::zeros(n);
        for j in 0..n {
            let mut d = a.get(j, j);
            for k in 0..j {
                d -= l.get(j, k) * l.get(j, k);
            }
            if !(d > 0.0 && d.is_finite()) {
                return None;
            }
            let d = d.sqrt();
            l.data[j * n + j] = d;
            for i in j + 1..n {
                let mut s = a.get(i, j);
                for k in 0..j {
                    s -= l.get(i, k) * l.get(j, k);
                }
                l.data[i * n + j] = s / d;
            }
        }
        Some(Self { l })
    }

    /// Solves `A·x = b`.
    pub(crate) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.l.n;
        let mut x = b.to_vec();
        // Forward: L·y = b.
        for i in 0..n {
            for k in 0..i {
                x[i] -= self.l.get(i, k) * x[k];
            }
            x[i] /= self.l.get(i, i);
        }
        // Backward: Lᵀ·x = y.
        for i in (0..n).rev() {
            for k in i + 1..n {
                x[i] -= self.l.get(k, i) * x[k];
            }
            x[i] /= self.l.get(i, i);
        }
        x
    }

    /// `A⁻¹`, column by column.
    pub(crate) fn inverse(&self) -> Matrix {
        let n = self.l.n;
        let mut inv = Matrix::zeros(n);
        let mut e = vec![0.0; n];
        for j in 0..n {
            e.fill(0.0);
            e[j] = 1.0;
            let col = self.solve(&e);
            for (i, v) in col.into_iter().enumerate() {
                inv.data[i * n + j] = v;
            }
        }
        inv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_rows(rows: &[&[f64]]) -> Matrix {
        let n = rows.len();
        let mut m = Matrix::zeros(n);
        for (i, row) in rows.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                m.add(i, j, v);
            }
        }
        m
    }

    #[test]
    fn solves_and_inverts_a_small_spd_matrix() {
        let a = from_rows(&[&[4.0, 2.0, 0.4], &[2.0, 5.0, 1.0], &[0.4, 1.0, 3.0]]);
        let chol = Cholesky::new(&a).expect("positive definite");
        let x = chol.solve(&[1.0, 2.0, 3.0]);
        for i in 0..3 {
            let ax: f64 = (0..3).map(|j| a.get(i, j) * x[j]).sum();
            assert!((ax - [1.0, 2.0, 3.0][i]).abs() < 1e-12);
        }
        let inv = chol.inverse();
        for i in 0..3 {
            for j in 0..3 {
                let p: f64 = (0..3).map(|k| a.get(i, k) * inv.get(k, j)).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((p - want).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn refuses_a_matrix_that_is_not_positive_definite() {
        let a = from_rows(&[&[1.0, 2.0], &[2.0, 1.0]]);
        assert!(Cholesky::new(&a).is_none());
        assert!(Cholesky::new(&Matrix::zeros(0)).is_some());
    }
}
