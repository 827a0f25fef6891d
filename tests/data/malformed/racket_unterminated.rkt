; the closing quote is missing
'("cymK" "KyCy" "ymkc"
  "mkYc" "MycK "mCkY"
