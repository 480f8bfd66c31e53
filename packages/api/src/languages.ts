// Language codes of educational materials (the original's list) and their names: a wire fact (the admin API takes these codes).
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  'en-us': 'English (United States)',
  'es-us': 'Spanish (United States)',
  'en-ca': 'English (Canada)',
  'fr-ca': 'French (Canada)',
  'fr-fr': 'French (France)',
  'da-dk': 'Danish (Denmark)',
  'ar-eg': 'Arabic (Egypt)',
  'ar-us': 'Arabic (United States)',
  'bn-us': 'Bengali (United States)',
  'bs-ba': 'Bosnian (Bosnia and Herzegovina)',
  'bs-us': 'Bosnian (United States)',
  'fa-ir': 'Persian (Iran)',
  'fa-us': 'Persian (United States)',
  'hr-hr': 'Croatian (Croatia)',
  'ht-us': 'Haitian Creole (United States)',
  'ko-us': 'Korean (United States)',
  'ru-ru': 'Russian (Russia)',
  'ru-us': 'Russian (United States)',
  'sr-us': 'Serbian (United States)',
  'so-so': 'Somali (Somalia)',
  'so-us': 'Somali (United States)',
  'tl-us': 'Tagalog (United States)',
  'vi-vn': 'Vietnamese (Vietnam)',
  'vi-us': 'Vietnamese (United States)',
  'zh-cn': 'Chinese (China)',
  'zh-us': 'Chinese (United States)',
};

export const LANGUAGE_CODES: readonly string[] = Object.keys(LANGUAGE_NAMES);

export const languageName = (code: string): string => LANGUAGE_NAMES[code] ?? code;
