/** The shop's made-up data. */

export interface Product {
  id: number;
  name: string;
  priceCents: number;
}

export const PRODUCTS: Product[] = [
  { id: 1, name: 'Brass lantern', priceCents: 4900 },
  { id: 2, name: 'Beeswax candles (6)', priceCents: 1200 },
  { id: 3, name: 'Wick trimmer', priceCents: 800 },
  { id: 4, name: 'Storm glass', priceCents: 2900 },
  { id: 5, name: 'Lamp oil, 1 l', priceCents: 1500 },
];

export interface CartLine {
  product: Product;
  quantity: number;
}

/** Carts 1-20 exist; each has a fixed content derived from its id. */
export function cartById(id: number): CartLine[] | undefined {
  if (!Number.isInteger(id) || id < 1 || id > 20) return undefined;
  return PRODUCTS.filter((p) => (id + p.id) % 3 !== 0).map((product) => ({ product, quantity: 1 + ((id * product.id) % 3) }));
}

export const totalCents = (cart: CartLine[]) => cart.reduce((sum, line) => sum + line.product.priceCents * line.quantity, 0);
