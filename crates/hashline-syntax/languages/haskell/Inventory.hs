{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE DerivingStrategies #-}

-- | Stock levels of a small warehouse: items, movements in and out, and the
-- reorder report the purchasing team reads every morning.
module Inventory
  ( Sku (..)
  , Item (..)
  , Movement (..)
  , Stock
  , Priced (..)
  , emptyStock
  , applyMovement
  , reorderReport
  ) where

import Data.List (sortOn)
import qualified Data.Map.Strict as Map
import Data.Text (Text)
import qualified Data.Text as T

-- | A stock-keeping unit: the code printed on the shelf label.
newtype Sku = Sku Text
  deriving stock (Eq, Ord, Show)

-- | Quantities are whole units; negative stock is refused.
type Quantity = Int

-- | Prices in cents, to keep sums exact.
type Cents = Integer

-- | What the warehouse keeps.
data Item = Item
  { itemSku :: Sku
  , itemName :: Text
  , itemPrice :: Cents
  , reorderAt :: Quantity
  -- ^ Below this level the item goes on the reorder report.
  }
  deriving stock (Eq, Show)

-- | One change of the stock level.
data Movement
  = Received Sku Quantity
  | Shipped Sku Quantity
  | Counted Sku Quantity
  -- ^ A stock count replaces the level outright.
  deriving stock (Eq, Show)

-- | Why a movement was refused.
data StockError
  = UnknownSku Sku
  | NotEnough Sku Quantity Quantity
  deriving stock (Eq, Show)

-- | The levels by SKU, with the items' details.
data Stock = Stock
  { stockItems :: Map.Map Sku Item
  , stockLevels :: Map.Map Sku Quantity
  }

-- | Things that have a price.
class Priced a where
  -- | The price of one unit.
  unitPrice :: a -> Cents

  -- | The price of @n@ units.
  priceOf :: Quantity -> a -> Cents

instance Priced Item where
  unitPrice = itemPrice
  priceOf n item = fromIntegral n * itemPrice item

instance Semigroup Stock where
  Stock a b <> Stock c d = Stock (a <> c) (Map.unionWith (+) b d)

instance Monoid Stock where
  mempty = emptyStock

-- | A warehouse with nothing in it.
emptyStock :: Stock
emptyStock = Stock Map.empty Map.empty

-- | Adds an item to the catalogue with a level of zero.
addItem :: Item -> Stock -> Stock
addItem item stock =
  stock
    { stockItems = Map.insert sku item (stockItems stock)
    , stockLevels = Map.insertWith (\_ old -> old) sku 0 (stockLevels stock)
    }
  where
    sku = itemSku item

-- | The level of one SKU, if the warehouse knows it.
levelOf :: Sku -> Stock -> Maybe Quantity
levelOf sku = Map.lookup sku . stockLevels

-- | Applies one movement, or says why it cannot be applied.
applyMovement :: Movement -> Stock -> Either StockError Stock
applyMovement movement stock =
  case movement of
    Received sku n -> adjust sku (+ n)
    Shipped sku n -> do
      have <- known sku
      if have < n
        then Left (NotEnough sku have n)
        else adjust sku (subtract n)
    Counted sku n -> adjust sku (const n)
  where
    known sku = maybe (Left (UnknownSku sku)) Right (levelOf sku stock)

    adjust sku f = do
      _ <- known sku
      pure stock {stockLevels = Map.adjust f sku (stockLevels stock)}

-- | Applies movements in order, stopping at the first refused one.
applyAll :: [Movement] -> Stock -> Either StockError Stock
applyAll [] stock = Right stock
applyAll (m : ms) stock = applyMovement m stock >>= applyAll ms

-- | The value of everything on the shelves.
stockValue :: Stock -> Cents
stockValue (Stock items levels) = sum (Map.intersectionWith value items levels)
  where
    value item n = priceOf n item
{-# INLINE stockValue #-}

-- | A line of the reorder report.
data ReorderLine = ReorderLine
  { lineSku :: Sku
  , lineName :: Text
  , lineShort :: Quantity
  }
  deriving stock (Show)

-- | Items at or below their reorder level, the most short first.
reorderReport :: Stock -> [ReorderLine]
reorderReport (Stock items levels) =
  sortOn (negate . lineShort) (Map.elems (Map.mapMaybeWithKey short items))
  where
    short sku item = do
      level <- Map.lookup sku levels
      let missing = reorderAt item - level
      if missing >= 0
        then Just (ReorderLine sku (itemName item) (missing + 1))
        else Nothing

-- | The report as text, one line per item.
renderReport :: [ReorderLine] -> Text
renderReport [] = "Nothing to reorder."
renderReport rows = T.unlines (header : map render rows)
  where
    header = "SKU\tItem\tShort"
    render (ReorderLine (Sku code) name n) =
      T.intercalate "\t" [code, name, T.pack (show n)]

-- | Movements of one SKU.
movementsOf :: Sku -> [Movement] -> [Movement]
movementsOf sku = filter touches
  where
    touches (Received s _) = s == sku
    touches (Shipped s _) = s == sku
    touches (Counted s _) = s == sku

-- | The net change of a list of movements, ignoring counts.
netChange :: [Movement] -> Quantity
netChange = foldr step 0
  where
    step (Received _ n) acc = acc + n
    step (Shipped _ n) acc = acc - n
    step (Counted _ _) acc = acc

-- | A tiny catalogue for the REPL.
sampleStock :: Stock
sampleStock = foldr addItem emptyStock items
  where
    items =
      [ Item (Sku "BOLT-M6") "M6 bolt, zinc" 12 200
      , Item (Sku "NUT-M6") "M6 nut, zinc" 4 400
      , Item (Sku "WASH-M6") "M6 washer" 2 500
      ]

-- | The largest order we place at once.
maxOrder :: Quantity
maxOrder = 10000
