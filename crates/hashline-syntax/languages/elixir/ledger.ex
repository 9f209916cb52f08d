defmodule Ledger do
  @moduledoc """
  A double-entry ledger: accounts, balanced transactions and the reports built on them.

  Amounts are integers in the smallest unit of their currency.
  """

  alias Ledger.{Account, Entry, Transaction}
  require Logger

  @default_currency :eur

  @typedoc "An account's identifier."
  @type account_id :: String.t()

  @type balances :: %{optional(account_id()) => integer()}

  # Something a transaction can be posted to: an in-memory book, a database table, …
  defprotocol Postable do
    @doc "Posts `transaction`, returning the updated target."
    def post(target, transaction)

    @doc "The balance of `account` in the target."
    def balance(target, account)
  end

  defmodule Account do
    @moduledoc "An account of the chart, with its normal side."

    @enforce_keys [:id, :name, :kind]
    defstruct [:id, :name, :kind, currency: :eur]

    @type kind :: :asset | :liability | :equity | :income | :expense

    @doc """
    Whether a debit raises the account's balance.
    """
    @spec debit_normal?(%__MODULE__{}) :: boolean()
    def debit_normal?(%__MODULE__{kind: kind}) when kind in [:asset, :expense], do: true
    def debit_normal?(%__MODULE__{}), do: false
  end

  defmodule Entry do
    @moduledoc false

    defstruct [:account, :amount, :memo]

    @doc "A debit of `amount` to `account`."
    def debit(account, amount), do: %__MODULE__{account: account, amount: amount}

    @doc "A credit of `amount` to `account`."
    def credit(account, amount), do: %__MODULE__{account: account, amount: -amount}
  end

  defmodule Transaction do
    @moduledoc "Entries that sum to zero, posted together or not at all."

    defstruct [:id, :date, entries: [], currency: :eur]

    defmodule UnbalancedError do
      defexception [:total]

      @impl true
      def message(%{total: total}), do: "entries sum to #{total}, not zero"
    end

    @doc """
    Builds a transaction, refusing entries that do not balance.
    """
    @spec new(String.t(), Date.t(), [Entry.t()]) :: {:ok, t()} | {:error, Exception.t()}
    def new(id, date, entries) do
      case total(entries) do
        0 -> {:ok, %__MODULE__{id: id, date: date, entries: entries}}
        other -> {:error, %UnbalancedError{total: other}}
      end
    end

    @doc "Like `new/3`, raising on unbalanced entries."
    def new!(id, date, entries) do
      case new(id, date, entries) do
        {:ok, transaction} -> transaction
        {:error, error} -> raise error
      end
    end

    defp total(entries), do: entries |> Enum.map(& &1.amount) |> Enum.sum()
  end

  defmodule Book do
    @moduledoc "A ledger kept in a map, for tests and scripts."

    defstruct postings: %{}, log: []

    defimpl Postable do
      def post(book, transaction) do
        postings =
          Enum.reduce(transaction.entries, book.postings, fn entry, acc ->
            Map.update(acc, entry.account, entry.amount, &(&1 + entry.amount))
          end)

        %{book | postings: postings, log: [transaction.id | book.log]}
      end

      def balance(book, account), do: Map.get(book.postings, account, 0)
    end
  end

  @doc """
  Posts every transaction to `target` in order, logging each one.
  """
  @spec post_all(Postable.t(), [Transaction.t()]) :: Postable.t()
  def post_all(target, transactions) do
    Enum.reduce(transactions, target, fn transaction, acc ->
      Logger.debug("posting #{transaction.id}")
      Postable.post(acc, transaction)
    end)
  end

  @doc "The balances of `accounts` in `target`, by account id."
  @spec balances(Postable.t(), [Account.t()]) :: balances()
  def balances(target, accounts) do
    Map.new(accounts, fn account -> {account.id, Postable.balance(target, account.id)} end)
  end

  @doc """
  A trial balance: the debit-normal and credit-normal totals, which must be equal.
  """
  def trial_balance(target, accounts) do
    {debits, credits} = Enum.split_with(accounts, &Account.debit_normal?/1)
    sum = fn group -> group |> Enum.map(&Postable.balance(target, &1.id)) |> Enum.sum() end
    %{debits: sum.(debits), credits: -sum.(credits)}
  end

  @doc "Formats an amount with its currency, two decimals."
  def format_amount(amount, currency \\ @default_currency)

  def format_amount(amount, currency) when amount < 0,
    do: "-" <> format_amount(-amount, currency)

  def format_amount(amount, currency) do
    units = div(amount, 100)
    cents = amount |> rem(100) |> Integer.to_string() |> String.pad_leading(2, "0")
    "#{units}.#{cents} #{currency |> Atom.to_string() |> String.upcase()}"
  end

  # Asserts at compile time that a literal amount is an integer.
  defmacro amount!(value) do
    quote do
      value = unquote(value)
      unless is_integer(value), do: raise(ArgumentError, "not an amount: #{inspect(value)}")
      value
    end
  end

  defguard is_amount(value) when is_integer(value)

  defp log_unbalanced(%Transaction.UnbalancedError{total: total}) do
    Logger.warning("unbalanced by #{total}")
  end
end
