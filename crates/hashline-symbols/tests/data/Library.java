package org.example.library;

import java.util.ArrayList;
import java.util.List;

/**
 * A lending library.
 */
@Deprecated
public class Library {
    /** The most loans per member. */
    public static final int MAX_LOANS = 5;

    private final List<Book> books = new ArrayList<>();

    public Library() {}

    /** Adds a book. */
    @SuppressWarnings("unchecked")
    public void add(Book book) {
        books.add(book);
    }

    public int size() {
        return books.size();
    }

    /** A book. */
    public record Book(String title, String author) {
        public String label() {
            return title + " by " + author;
        }
    }

    enum Status {
        AVAILABLE,
        LENT;
    }

    interface Listener {
        void onLoan(Book book);
    }
}
