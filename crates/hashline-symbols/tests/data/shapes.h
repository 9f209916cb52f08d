#pragma once
#include <string>
#include <vector>

namespace geo {

/// A 2-D point.
struct Point {
    double x;
    double y;
};

/// Any shape.
class Shape {
public:
    virtual ~Shape() = default;
    /// Its area.
    virtual double area() const = 0;
    std::string name() const { return "shape"; }
};

template <typename T>
class Grid {
public:
    T at(int i) const { return cells[i]; }
private:
    std::vector<T> cells;
};

class Circle : public Shape {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override;

    class Builder {
    public:
        Builder& radius(double r) { r_ = r; return *this; }
    private:
        double r_ = 1;
    };

private:
    double r_;
};

double Circle::area() const {
    return 3.14159 * r_ * r_;
}

using Shapes = std::vector<Shape*>;

}  // namespace geo
