/// \file matrix.hpp
/// Dense matrices of fixed element type, with row views and a small
/// expression helper. Header-only.

#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <ostream>
#include <stdexcept>
#include <vector>

/// The library's version, as one number: major * 10000 + minor * 100 + patch.
#define LINALG_VERSION 10203

/// Checks a precondition; throws std::out_of_range with `msg` when it fails.
#define LINALG_CHECK(cond, msg)              \
    do {                                     \
        if (!(cond)) {                       \
            throw std::out_of_range(msg);    \
        }                                    \
    } while (0)

namespace linalg {

/// The index type used for rows and columns.
using index_t = std::size_t;

/// How two matrices are combined element by element.
enum class Op : unsigned char {
    Add,  ///< a + b
    Sub,  ///< a - b
    Mul,  ///< a * b (element-wise, not the matrix product)
};

/// Thrown when two matrices' shapes do not fit an operation.
class ShapeError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// A matrix's number of rows and columns.
struct Shape {
    index_t rows = 0;
    index_t cols = 0;

    /// The number of elements.
    [[nodiscard]] constexpr index_t size() const noexcept { return rows * cols; }

    friend constexpr bool operator==(Shape a, Shape b) noexcept {
        return a.rows == b.rows && a.cols == b.cols;
    }
};

/// A dense, row-major matrix.
///
/// \tparam T the element type; must be default-constructible and copyable.
template <typename T>
class Matrix {
public:
    using value_type = T;

    /// A read-only view of one row.
    class RowView {
    public:
        RowView(const T* data, index_t cols) : data_(data), cols_(cols) {}

        /// The element in column `c`.
        const T& operator[](index_t c) const { return data_[c]; }

        [[nodiscard]] index_t size() const noexcept { return cols_; }

        const T* begin() const { return data_; }
        const T* end() const { return data_ + cols_; }

    private:
        const T* data_;
        index_t cols_;
    };

    /// An empty 0x0 matrix.
    Matrix() = default;

    /// A `rows` x `cols` matrix filled with `fill`.
    Matrix(index_t rows, index_t cols, const T& fill = T{})
        : shape_{rows, cols}, data_(rows * cols, fill) {}

    /// A matrix from nested braces: `Matrix<int>{{1, 2}, {3, 4}}`.
    Matrix(std::initializer_list<std::initializer_list<T>> rows);

    [[nodiscard]] Shape shape() const noexcept { return shape_; }

    /// The element at row `r`, column `c`, bounds-checked.
    T& at(index_t r, index_t c);
    const T& at(index_t r, index_t c) const;

    /// A view of row `r`.
    RowView row(index_t r) const {
        LINALG_CHECK(r < shape_.rows, "row out of range");
        return RowView(data_.data() + r * shape_.cols, shape_.cols);
    }

    /// The transpose, as a new matrix.
    Matrix transposed() const;

    /// Combines two matrices of equal shape element by element.
    static Matrix combine(const Matrix& a, const Matrix& b, Op op);

    Matrix& operator+=(const Matrix& other) {
        *this = combine(*this, other, Op::Add);
        return *this;
    }

    /// The matrix product; throws ShapeError when the inner sizes differ.
    friend Matrix operator*(const Matrix& a, const Matrix& b) {
        if (a.shape_.cols != b.shape_.rows) {
            throw ShapeError("inner sizes differ");
        }
        Matrix out(a.shape_.rows, b.shape_.cols);
        for (index_t i = 0; i < a.shape_.rows; ++i) {
            for (index_t k = 0; k < a.shape_.cols; ++k) {
                for (index_t j = 0; j < b.shape_.cols; ++j) {
                    out.at(i, j) += a.at(i, k) * b.at(k, j);
                }
            }
        }
        return out;
    }

private:
    Shape shape_{};
    std::vector<T> data_;
};

template <typename T>
Matrix<T>::Matrix(std::initializer_list<std::initializer_list<T>> rows) {
    shape_.rows = rows.size();
    shape_.cols = rows.size() == 0 ? 0 : rows.begin()->size();
    data_.reserve(shape_.size());
    for (const auto& row : rows) {
        if (row.size() != shape_.cols) {
            throw ShapeError("ragged initializer");
        }
        data_.insert(data_.end(), row.begin(), row.end());
    }
}

template <typename T>
T& Matrix<T>::at(index_t r, index_t c) {
    LINALG_CHECK(r < shape_.rows && c < shape_.cols, "index out of range");
    return data_[r * shape_.cols + c];
}

template <typename T>
const T& Matrix<T>::at(index_t r, index_t c) const {
    LINALG_CHECK(r < shape_.rows && c < shape_.cols, "index out of range");
    return data_[r * shape_.cols + c];
}

template <typename T>
Matrix<T> Matrix<T>::transposed() const {
    Matrix out(shape_.cols, shape_.rows);
    for (index_t r = 0; r < shape_.rows; ++r) {
        for (index_t c = 0; c < shape_.cols; ++c) {
            out.at(c, r) = at(r, c);
        }
    }
    return out;
}

template <typename T>
Matrix<T> Matrix<T>::combine(const Matrix& a, const Matrix& b, Op op) {
    if (!(a.shape_ == b.shape_)) {
        throw ShapeError("shapes differ");
    }
    Matrix out(a.shape_.rows, a.shape_.cols);
    for (index_t i = 0; i < a.data_.size(); ++i) {
        switch (op) {
        case Op::Add: out.data_[i] = a.data_[i] + b.data_[i]; break;
        case Op::Sub: out.data_[i] = a.data_[i] - b.data_[i]; break;
        case Op::Mul: out.data_[i] = a.data_[i] * b.data_[i]; break;
        }
    }
    return out;
}

/// Prints a matrix one row per line, elements separated by spaces.
template <typename T>
std::ostream& operator<<(std::ostream& os, const Matrix<T>& m) {
    for (index_t r = 0; r < m.shape().rows; ++r) {
        const auto row = m.row(r);
        for (index_t c = 0; c < row.size(); ++c) {
            os << (c ? " " : "") << row[c];
        }
        os << '\n';
    }
    return os;
}

/// The `n` x `n` identity matrix.
template <typename T>
[[nodiscard]] Matrix<T> identity(index_t n) {
    Matrix<T> out(n, n);
    for (index_t i = 0; i < n; ++i) {
        out.at(i, i) = T{1};
    }
    return out;
}

namespace detail {

/// The largest absolute element, used by `approx_equal`'s tolerance.
template <typename T>
T max_abs(const Matrix<T>& m) {
    T best{};
    for (index_t r = 0; r < m.shape().rows; ++r) {
        for (const T& x : m.row(r)) {
            best = std::max(best, x < T{} ? -x : x);
        }
    }
    return best;
}

}  // namespace detail

/// Whether two matrices are equal within a relative tolerance.
template <typename T>
bool approx_equal(const Matrix<T>& a, const Matrix<T>& b, T tolerance) {
    if (!(a.shape() == b.shape())) {
        return false;
    }
    const T scale = std::max(detail::max_abs(a), detail::max_abs(b));
    const Matrix<T> diff = Matrix<T>::combine(a, b, Op::Sub);
    return detail::max_abs(diff) <= tolerance * scale;
}

/// Common element types.
using MatrixF = Matrix<float>;
using MatrixD = Matrix<double>;
typedef Matrix<int> MatrixI;

}  // namespace linalg
