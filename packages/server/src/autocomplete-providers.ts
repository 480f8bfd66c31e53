// The option providers of the app: each feature that owns data an AutocompleteField offers
// (terminology/, reference/, chart/) declares its providers, and the app registers them with the
// autocomplete framework (autocomplete/) when it is assembled (app.ts, buildApp). It lives at
// the top of src/ (beside app.ts) because it joins feature folders that autocomplete/ must not
// import.
import { registerOptionProviders, type OptionProviders } from './autocomplete/index.ts';
import { chartOptionProviders } from './chart/autocomplete-provider.ts';
import { referenceOptionProviders } from './reference/autocomplete-provider.ts';
import { terminologyOptionProviders } from './terminology/autocomplete-provider.ts';

/** One provider per source kind (the compiler checks none is missing). */
export const optionProviders: OptionProviders = { ...terminologyOptionProviders, ...referenceOptionProviders, ...chartOptionProviders };

/** Registers every provider with the autocomplete framework; calling it again changes nothing. */
export function registerAutocompleteProviders(): void {
  registerOptionProviders(optionProviders);
}
